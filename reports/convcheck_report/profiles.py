"""Tolerance profiles (docs/accuracy.md, "Tolerance profiles"): per backend and profile, the cases where the
profile's published rule and convcheck's verdict agree, and where they part: a false green passes the profile where
convcheck fails the case, a false red fails it where convcheck passes it (the case records' "profiles").
"""
from dataclasses import dataclass


@dataclass
class ProfileRow:
    backend: str
    profile: str
    judged: int
    agree: int
    false_green: int
    false_red: int
    first_green: str    # a reproducer, or ""
    first_red: str


def profile_rows(cases, backends):
    rows = []
    for backend in backends:
        mine = [c for c in cases if c.backend == backend and c.profiles and c.status in ("passed", "failed")]
        names = sorted({name for c in mine for name in c.profiles})
        for name in names:
            judged = [c for c in mine if c.profiles.get(name) is not None]
            green = [c for c in judged if c.profiles[name] and c.status == "failed"]
            red = [c for c in judged if not c.profiles[name] and c.status == "passed"]
            rows.append(ProfileRow(backend=backend, profile=name, judged=len(judged),
                                   agree=len(judged) - len(green) - len(red), false_green=len(green),
                                   false_red=len(red), first_green=green[0].reproducer if green else "",
                                   first_red=red[0].reproducer if red else ""))
    return rows
