"""Variants in one place: what an exercise may vary (`spec`) and which variant each student of a
class is handed (`table`).

Both sit in the exercises house's bottom layer, beside the catalog: the catalog parses every
exercise's `[variant]` with `spec`, and every room above (the engine's judge, authoring's bundle,
the learner's workspace, the teacher's class run) reads variants from here. The two workflows that
*use* variants stay in their rooms: proving random variants (`authoring.variant_lint`, which runs
the engine) and finding a class's secret (`teacher.class_variants`, which reads a class's
workspaces); here they would make the variants package and those rooms import each other.
"""
