# A value not typed yet: the grammar's scanner emits no line end after `=`
# and reads the next line as the value (`EAGLE = NGRAM = "ngram"`); CPython
# ends the statement at the line break.
EAGLE =
NGRAM = "ngram"
