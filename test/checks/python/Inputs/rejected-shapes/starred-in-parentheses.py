# A starred expression alone in parentheses is no tuple (it needs a comma).
def names(model):
    return (
        *model.names  # the rest
    )
