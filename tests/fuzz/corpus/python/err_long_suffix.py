x = 10L
