import os, sys as s
from __future__ import annotations
from . import (a,
  b as c,
  d)
from ..x.y import z
"""
import inside_docstring
"""
    import indented
from typing_extensions import Self
import yaml
from (
