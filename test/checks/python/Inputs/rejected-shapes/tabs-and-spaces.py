# Lines of one block at column 8, one indented by a tab and one by
# eight spaces: equal with tabs of 8, not with tabs of 1 (a TabError).
if True:
	first = 1
        second = 2
