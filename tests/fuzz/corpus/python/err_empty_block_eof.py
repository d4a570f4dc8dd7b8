for x in y:
