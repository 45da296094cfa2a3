"""Authoring a course: sealing an exercise's solution (`sealing`), proving an exercise sound
(`lint`), and releasing a course bundle with its solutions kept back (`bundle`).

It sits above the engine (a seal proves the solution passes and each wrong answer fails, by
running them) and below both the learner's side (a class workspace opens a bundle) and the
teacher's (release, lint).
"""
