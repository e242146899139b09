a, b: int = 1
