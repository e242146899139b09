x: int = y = 1
