"""The worker package on sys.path, and the repository's paths, for the worker's Python tests."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "plugins" / "executors" / "worker"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
