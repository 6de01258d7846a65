"""Shell completion for `whichgpu`, written from its argument parser, so a new command or option completes
the day it is added: commands, sub-actions, options, and the values of options that take a fixed set.

zsh runs the same function through its bash compatibility layer (``bashcompinit``).
"""

from __future__ import annotations

import argparse
import shlex

__all__ = ["completion_script"]

# zsh: compinit (compdef) unless the rc file ran it already, then bash's `complete` through bashcompinit.
ZSH_PRELUDE = (
    "(( $+functions[compdef] )) || { autoload -Uz compinit && compinit -u; }\n"
    "autoload -Uz bashcompinit && bashcompinit"
)
# Options whose value is a file name; the others with a free value (dates, ports, names) complete nothing.
FILE_OPTIONS = frozenset({"-o", "--output"})


def _sub_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _values(action: argparse.Action) -> tuple[str, ...] | None:
    """The fixed values an option takes: its choices, or the listed workloads of a workload option."""
    if action.choices is not None:
        return tuple(str(choice) for choice in action.choices)
    if action.dest == "workload":
        from rules.contract.values import LISTED_WORKLOADS

        return LISTED_WORKLOADS
    return None


def _cases(parser: argparse.ArgumentParser, path: str, out: dict[str, str], values: list[str]) -> None:
    """One `case` arm per command path (what to offer next), one per option that takes a value."""
    subs = _sub_parsers(parser)
    words = list(subs)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        words += action.option_strings
        if not action.option_strings and action.choices is not None:
            words += [str(choice) for choice in action.choices]  # a positional with fixed values
        if action.option_strings and action.nargs != 0:
            fixed = _values(action)
            for option in action.option_strings:
                if fixed is not None:
                    reply = f'compgen -W {shlex.quote(" ".join(fixed))} -- "$cur"'
                elif option in FILE_OPTIONS:
                    reply = 'compgen -f -- "$cur"'
                else:
                    reply = "true"
                values.append(f"        {shlex.quote(f'{path}|{option}')}) COMPREPLY=($({reply})); return ;;")
    out[path] = " ".join(words)
    for name, child in subs.items():
        _cases(child, f"{path} {name}".strip(), out, values)


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion function for ``bash`` or ``zsh``, to be eval'ed by the shell's rc file."""
    prog = parser.prog
    paths: dict[str, str] = {}
    values: list[str] = []
    _cases(parser, "", paths, values)
    arms = [f"        {shlex.quote(path)}) words={shlex.quote(words)} ;;" for path, words in paths.items()]
    # every command path, so that an option's value is never taken for a command
    known = ":" + ":".join(paths) + ":"
    function = f"""_{prog}_complete() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" path="" words="" i
    local known={shlex.quote(known)}
    for ((i = 1; i < COMP_CWORD; i++)); do
        local next="${{path:+$path }}${{COMP_WORDS[i]}}"
        case "$known" in *":$next:"*) path="$next" ;; esac
    done
    case "$path|$prev" in
{chr(10).join(values)}
    esac
    case "$path" in
{chr(10).join(arms)}
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -F _{prog}_complete {prog}
"""
    if shell == "zsh":
        return f"{ZSH_PRELUDE}\n{function}"
    return function
