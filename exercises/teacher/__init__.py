"""The teacher's side, one module per class operation: the roster (`roster`), collecting a
class from a hub (`collect`, `hub`), regrading every submission in the jail (`classroom` grades
one student, `regrade` a class, `dask_executor` on a cluster), the LMS gradebook files
(`gradebook`), merged self-reported exports (`exports`), and what a class is told afterwards
(`feedback`, `analytics`, `class_report`).

It sits above the learner's side: a teacher opens and makes students' workspaces.
"""
