"""Where RouterLab's quantized fix lived while 0.1.0 was being written:
`routerlab.core.transfer.qtensor`, `.guard` and `.policies` are now `routerlab.core.fix.*`. The old
names stay importable so that exercise files written against those drafts keep working."""

import sys

from .. import policies
from ..fix import guard, qtensor

for _module in (guard, policies, qtensor):
    sys.modules[f"{__name__}.{_module.__name__.rpartition('.')[2]}"] = _module
