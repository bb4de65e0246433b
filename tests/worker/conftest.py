"""The worker package on sys.path, and the repository's paths, for the worker's Python tests (and scripts/, for
gluon_sm90, the compile-only sm_90 driver that scripts/compile-gluon.py and the Gluon tests share)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "plugins" / "executors" / "worker"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "scripts"))
