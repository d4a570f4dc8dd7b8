config = {"lr": 0.1}
print(config["lr"])
print(config["momentum"])
