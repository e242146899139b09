# A dot typed into a name of a from-import list: the grammar reads the
# imported name as a dotted name, CPython takes one identifier.
from collections import OrderedDict, defaultd.ct
