# Shapes close to the rejected ones that CPython compiles: all analysed.
from vllm.utils import weak_ref_tensors
x = y = z = 1
a.b = c.d = 1
(p): int = 1
q: int
r.s: int = 1
t[0]: int
u, = v
*w, = v
[*w2] = v
a1, *b1 = c1
(a2, b2), *c2 = d2
x += 1
a.b += 1
a[0] += 1
(x3) += 1
for k, *rest in pairs:
    pass
for e in 1, 2:
    pass
with open(p) as (f1, *f2), open(q) as g.h[0]:
    pass
try:
    pass
except (A, B) as err:
    pass
del a.b, c[0], (d, [e])
(n := 1)
f(m := 1, k=2, *args, **kw)
f(*a, b, *c, k=1, *d, **e, g=2)
class C(B, metaclass=M):
    n: int = 0
    def meth(self, a, /, b=1, *args, c, d=2, **kw):
        def inner():
            nonlocal b
            return (yield b)
        return lambda *xs, key=None, **o: xs
match x:
    case [first, *others] as whole:
        pass
    case {"k": (val as alias)} if val:
        pass
def helper(tensor):
    return weak_ref_tensors(weak_ref_tensors(tensor))
