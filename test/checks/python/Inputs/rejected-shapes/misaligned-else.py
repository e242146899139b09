def pick(flag):
    if flag:
        value = 1
      else:
        value = 2
    return value
