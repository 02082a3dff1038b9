import os

# numpy reads this once, when it is first imported: kenning/__init__.py sets it for the
# product (threaded BLAS is far slower for single-query scoring on a busy 2-core box, SPEC
# §3), but tests/conftest.py imports numpy before kenning, so every test process (and the
# scripts its tests start, which import numpy first too) ran BLAS on spinning threads: a
# brute-force top-k over 3,000 rows took 7 ms of CPU instead of 0.8. This package is
# imported before its conftest.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
