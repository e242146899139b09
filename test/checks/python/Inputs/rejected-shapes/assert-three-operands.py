# A comma typed into an assert's test: `assert a, b is None, "msg"`.
def check(engine):
    assert engine.transfer_,ngine is not None, "engine must be initialized"
