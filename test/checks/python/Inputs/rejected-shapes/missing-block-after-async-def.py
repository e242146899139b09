# An async def whose body was deleted, with comments where it stood.
async def drain(queue):
    # (the body stood here)
    # (and will again)

async def fill(queue):
    await queue.put(1)
