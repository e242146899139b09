import os
os.umask(0177)
