name = "héllo"
msg = "naïve: " + len(name)
