"""The model's vocabulary: errors, dtypes, devices, limits, the trace and the other plain values
that every other part of `routerlab.core` speaks in. Nothing here imports the rest of core, so it
can be read first and alone (docs/ARCHITECTURE.md, "The core house")."""
