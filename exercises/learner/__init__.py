"""The learner's side: a workspace on disk (`workspace`, `state`), checking and hinting through
one `Course` (`course`), the notebook face (`notebook`), the lab's copies of the notebooks
(`lab_notebooks`), watching files as they are saved (`watch`), a student's own export
(`export`), and the views both faces show (`render`).
"""
