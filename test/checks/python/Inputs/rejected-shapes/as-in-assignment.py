x = a as b
