"""gen_deep.py KIND N WHERE > file.py

Writes valid Python nesting one construct N levels deep, in a function
(WHERE=fn) or at the top level (WHERE=module), followed by a helper with a
double weak-ref conversion whose finding must still be reported.
"""
import sys

kind, n, where = sys.argv[1], int(sys.argv[2]), sys.argv[3]
expr = {
    'or': lambda n: ' or '.join('x%d' % i for i in range(n)),
    'and': lambda n: ' and '.join('x%d is not None' % i for i in range(n)),
    'call': lambda n: 'f' + '()' * n,
    'method': lambda n: 'x' + '.m()' * n,
    'plus': lambda n: ' + '.join('x' for _ in range(n)),
    'neg': lambda n: '-' * n + 'x',
    'not': lambda n: 'not ' * n + 'x',
    'sub': lambda n: 'x' + '[0]' * n,
    'attr': lambda n: 'x' + '.a' * n,
    'cond': lambda n: ' if c else '.join('x%d' % i for i in range(n)),
    'lambda': lambda n: 'lambda: ' * n + 'x',
}
if kind == 'elif':
    body = 'if x == 0:\n    y = 0\n' + ''.join(
        'elif x == %d:\n    y = f(%d)\n' % (i, i) for i in range(1, n))
elif kind == 'base':
    body = 'class A(%s):\n    pass\n' % expr['attr'](n)
else:
    body = 'y = %s\n' % expr[kind](n)
if where == 'fn':
    body = 'def g(x):\n' + ''.join('    ' + l + '\n' for l in body.splitlines())
sys.stdout.write(body + '''
from vllm.utils import weak_ref_tensors
def helper(t):
    return weak_ref_tensors(weak_ref_tensors(t))
''')
