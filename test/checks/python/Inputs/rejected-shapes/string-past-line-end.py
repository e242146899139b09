# A quote typed where a string was meant to go on: CPython ends a string
# that is not triple-quoted at the end of its line; the grammar's scanner
# read on to the next quote.
import logging

logger = logging.getLogger(__name__)


def report(resp):
    if resp != b"ACK":
        logger.error("
Failed to receive ACK for request %s", resp)
