"""The grading engine: everything that runs a student's file and judges what it did.

A check runs in a subprocess (`runner`, `harness`), inside a bubblewrap jail where one exists
(`jail`, `jail_image`, `jailhost`, `sandbox`), against the model with the graded functions
stripped (`guard`); a predict file's answers are read as literals, never executed (`literals`),
and the jail's reply is read bounded (`bounded`). `judge` compares answers with their truth,
`scoring` turns a check report into points. Nothing here knows about workspaces, bundles or a
class: the rooms above (`authoring`, `learner`, `teacher`) call in.
"""
