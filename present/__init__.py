"""How RouterLab looks: one palette (`palette`) and the renderers that use it.

The model (`routerlab.core`) describes *what* to show as data (`TableView`, style words such as
`"added"` or `"error"`); this package decides how that looks in HTML (`html`: Jupyter, the
exercise notebooks), in plain text (`text`) and in a terminal (`rich`: the CLI). Nothing below
`routerlab.core` imports it, and the submodules are imported one by one (`html` and `text` never
load rich), so each face pays only for its own renderer.
"""
