#!/usr/bin/env python3
"""The documentation's option tables are the library's option table
(glreader/av/export_options.h), read through the Python package: docs/exporter.md's "Every
option" section holds exactly the table's rows, as --write-docs makes them; docs/farm.md
names each option the farm's command line leaves out, with its reason; docs/filters.md has
a row for each option of the table, the source's option that does its work or why none
(filter_test holds the named options to ffmpeg -h filter=glreader).
Usage: option_docs_test.py SOURCE_DIR [--write-docs] (PYTHONPATH: the build's python/)."""
import sys

import glreader
from glreader import farm

BEGIN = "<!-- the option table: tests/option_docs_test.py --write-docs -->\n"
END = "<!-- end of the option table -->\n"


def rows():
    """The table as markdown: a section's heading, then its options."""
    out, section = [], None
    for o in glreader.export_options():
        if o["section"] != section:
            section = o["section"]
            out += [f"\n**{section}**\n\n", "| name (Python, farm) | command line | value | default | what it does |\n",
                    "|---|---|---|---|---|\n"]
        flags = ", ".join(f"`{f}`" for f in o["flags"].split(", "))
        value = f"`{o['value']}`".replace("|", "\\|") if o["value"] else "(a switch)"
        words = o["help"].replace("|", "\\|")
        if o["name"] in ("channel1", "channel2", "channel3"):
            words = f"as `channel0`, for iChannel{o['name'][-1]}"
        out.append(f"| `{o['name']}` | {flags} | {value} | {o['default']} | {words} |\n")
    return "".join(out)


def main():
    source, write = sys.argv[1], "--write-docs" in sys.argv
    page = f"{source}/docs/exporter.md"
    text = open(page).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"FAIL: {page} has no option table between {BEGIN.strip()} and {END.strip()}")
    before, rest = text.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    made = before + BEGIN + rows() + "\n" + END + after
    if write:
        open(page, "w").write(made)
        return
    if made != text:
        sys.exit(f"FAIL: {page}'s option table is not the library's: tests/option_docs_test.py {source} "
                 "--write-docs writes it anew")
    farm_page = open(f"{source}/docs/farm.md").read()
    for name, why in farm.NOT_TAKEN.items():
        if f"`{name}`: {why}" not in farm_page:
            sys.exit(f"FAIL: docs/farm.md does not say why the farm leaves out {name}: `{name}`: {why}")
    heading = "### glreader-export's options in the source\n"
    filters_page = open(f"{source}/docs/filters.md").read()
    if heading not in filters_page:
        sys.exit(f"FAIL: docs/filters.md has no section {heading.strip()}")
    filter_rows = []
    for line in filters_page.split(heading, 1)[1].splitlines():
        if line.startswith("| `"):
            filter_rows.append(line)
        elif filter_rows and not line.startswith("|"):
            break
    named = [row.split("`")[1] for row in filter_rows]
    names = [o["name"] for o in glreader.export_options()]
    if sorted(named) != sorted(names):
        sys.exit(f"FAIL: docs/filters.md's rows of glreader-export's options are not the table's: missing "
                 f"{sorted(set(names) - set(named))}, not in the table {sorted(set(named) - set(names))}, "
                 f"{len(named)} rows for {len(names)} options")
    print(f"option docs: {len(names)} options, {len(farm.NOT_TAKEN)} left out by the farm, each in the "
          "filter's table")


main()
