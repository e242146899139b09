# An async def whose body was deleted, with comments where it stood.
async def drain(queue):
    # TODO
    # body goes here

async def fill(queue):
    await queue.put(1)
