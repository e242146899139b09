x = a: int = 1
