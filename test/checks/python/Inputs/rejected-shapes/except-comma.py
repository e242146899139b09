try:
    pass
except E, e:
    pass
