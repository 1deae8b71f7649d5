team = "data"
