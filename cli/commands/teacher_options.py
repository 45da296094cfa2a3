"""The options of the `teacher` commands, declared once (Typer's `Annotated` style), so each
command's signature is a line per option and its body parses, calls its room and renders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

RecheckFolders = Annotated[list[Path], typer.Argument(
    exists=True, file_okay=False,
    help="Workspaces or folders of handed-in files; with --roster, the one folder of "
         "submissions (submitted/<id>/).")]
GradesOut = Annotated[Path, typer.Option(
    "--out", "-o", help="CSV path (a folder that does not exist yet is made).")]
Jobs = Annotated[int | None, typer.Option(
    "--jobs", "-j", min=1, help="Students graded side by side (default: one per core and one "
                                "more, at most 8).")]
RecheckRoster = Annotated[Path | None, typer.Option(
    "--roster", exists=True, dir_okay=False,
    help="roster.csv (id,name,email[,section,lms_id]): rows in roster order, matched on the "
         "id; lms_id goes into the LMS layouts.")]
GradesFormat = Annotated[str, typer.Option(
    "--format", help="CSV layout: plain, canvas (points) or moodle (percent, for a grade item "
                     "out of 100).")]
FeedbackDir = Annotated[Path | None, typer.Option(
    "--feedback", file_okay=False,
    help="Write one HTML page and one JSON file per student into this folder.")]
Resume = Annotated[bool, typer.Option(
    "--resume", help="Continue an interrupted run: grade only the students its journal "
                     "(OUT.jsonl) lacks.")]
NoIsolation = Annotated[bool, typer.Option(
    "--no-isolation", help="Grade without the bubblewrap jail (the CSV and the summary say "
                           "so).")]
Scheduler = Annotated[str | None, typer.Option(
    "--scheduler", metavar="tcp://HOST:PORT",
    help="Grade on this Dask cluster, one task per student, each worker in its own jail.")]
RecheckCourse = Annotated[str | None, typer.Option(
    "--course", help="The course id (default: the workspaces' markers'); its secret makes each "
                     "student's variant, and its gradebook records the run.")]
SecretFile = Annotated[Path | None, typer.Option(
    "--secret", dir_okay=False,
    help="The course secret's file, when it is not in your data folder.")]
Course = Annotated[str, typer.Option(
    "--course", help="The course id (its gradebook is in your data folder, beside its "
                     "secret).")]
Student = Annotated[str, typer.Argument(metavar="STUDENT", help="A student id of the roster.")]
Assignment = Annotated[str, typer.Argument(metavar="ASSIGNMENT", help="An assignment id.")]
Due = Annotated[str, typer.Option(
    "--due", metavar="WHEN", help="YYYY-MM-DD (the end of that day, UTC) or "
                                  "YYYY-MM-DDTHH:MM[+HH:MM].")]
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]

# `teacher collect`
HubOut = Annotated[Path, typer.Argument(
    help="Where each student's copy goes: OUT/<student>/ (what `teacher "
                        "recheck` reads).")]
HubUrl = Annotated[str, typer.Option("--hub", metavar="URL",
                                     help="The hub, e.g. https://hub.example.org")]
TokenFile = Annotated[Path | None, typer.Option(
    "--token-file", metavar="FILE",
    help="A file holding an admin's API token (default: $ROUTERLAB_HUB_TOKEN, then "
         "$JUPYTERHUB_API_TOKEN). Never on the command line.")]
HubStudents = Annotated[list[str] | None, typer.Option(
    "--student", help="Collect only this hub user (repeat for more).")]
HubPath = Annotated[str, typer.Option(
    "--path", help="The workspace's folder under each server's root (default: the root, as "
                   "RouterLab's hub configurations serve it).")]
TimeLimit = Annotated[int, typer.Option(
    "--time-limit", metavar="MINUTES", min=1, max=24 * 60,
    help="The whole collect's limit; a student still to copy then is reported as not collected "
         "(default 60).")]
CollectCourse = Annotated[str | None, typer.Option(
    "--course", help="Also record each collection (files, the hub's file times) in this "
                     "course's gradebook.")]
