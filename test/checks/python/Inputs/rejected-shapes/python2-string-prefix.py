import re
PATTERN = re.compile(ur'^(?:yes|no)$')
