"""Burn's router types, one module per Burn type: the IR (burn-ir), the handle registry
(`handle.rs`), the router tensor and client (burn-router), the interpreter, the per-device
sessions and the server that schedules them, and the numpy/CuPy backend under them
(docs/ARCHITECTURE.md, "The core house")."""
