import os
import pathlib
import sys

# Test helpers (reference rules) live beside the tests.
sys.path.insert(0, str(pathlib.Path(__file__).parent))

# The line said when a call waits for the compiler (cardenvs.core.first_use.QUIET) stays out of the tests'
# output, in this process and the ones the tests start; tests/test_first_use.py checks the line itself.
os.environ["CARDENVS_COMPILE_QUIET"] = "1"
