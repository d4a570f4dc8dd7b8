x = eval("1+1")
