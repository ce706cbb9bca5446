"""The farm's command line is glreader-export's option table: every option of the library's
table is taken by its spellings or left out with a reason, encoder options pass through to
the encoder, and a misspelled option is refused naming the nearest. (No Ray needed: nothing
here renders; tests/farm renders with these options against glreader-export.)"""
import contextlib
import io

import pytest

import glreader
from glreader import farm


def run(argv):
    """(exit status, stderr) of the farm's main when argv is refused before anything starts."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stopped:
        farm.main(argv)
    return stopped.value.code, err.getvalue()


def test_every_option_of_the_table_is_taken_or_left_out_with_a_reason():
    parser = farm.command_line.option_parser()
    taken = set(parser._option_string_actions)
    table = glreader.export_options()
    assert set(farm.NOT_TAKEN) <= {o["name"] for o in table}
    for o in table:
        flags = o["flags"].split(", ")
        if o["name"] in farm.NOT_TAKEN:
            assert len(farm.NOT_TAKEN[o["name"]]) > 10
            assert not set(flags) & taken, f"{o['name']} is left out, yet taken"
        else:
            assert set(flags) <= taken, f"{o['name']} ({o['flags']}) is not on the farm's command line"
            action = parser._option_string_actions[flags[0]]
            assert action.dest == o["name"], action.dest
            # The table's words and default (but -o, the joined output, is required), listed
            # in --help (every channel too).
            if o["name"] != "output":
                assert o["help"] in action.help and f"(default: {o['default']})" in action.help, action.help
                assert all(flag in parser.format_help() for flag in flags), o["flags"]


def test_encoder_options_pass_through_and_unknown_or_left_out_options_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # out.mkv, were a refusal to let a render through
    parser = farm.command_line.option_parser()
    kept, encoder = farm.command_line.split_encoder_options(parser, ["-c", "libx264", "-crf", "21", "-tune", "animation", "-b:v",
                                                         "300k"])
    assert kept == ["-c", "libx264"] and encoder == [("-crf", "21"), ("-tune", "animation"), ("-b:v", "300k")]
    status, said = run(["--shader", "x.frag", "-n", "4", "--chunks", "2", "-o", "out.mkv", "-tt", "2"])
    assert status == 2 and "unknown option -tt: neither glreader's nor an encoder's (did you mean -t?)" in said, said
    status, said = run(["-n", "4", "--chunks", "2", "-o", "out.mkv", "--chunk"])
    assert status == 2 and "--chunk: not taken by the farm: the farm makes the chunks" in said, said
    status, said = run(["-n", "4", "--chunks", "2", "-o", "out.mkv", "-metadata", "title"])
    assert status == 2 and "-metadata takes KEY=VALUE" in said, said
    status, said = run(["-n", "4", "--chunks", "2", "-o", "out.mkv", "--depth", "99"])
    assert status == 2 and "--depth needs a whole number from 1 to 64, not '99'" in said, said
    status, said = run(["-n", "4", "--chunks", "2", "-o", "out.mkv", "-s", "640"])
    assert status == 2 and "-s needs WIDTHxHEIGHT" in said, said
    # Each refusal in a line, with where the options are listed, not argparse's whole usage.
    status, said = run(["-n", "4", "-o", "out.mkv"])
    assert status == 2 and said == ("python -m glreader.farm: one of the arguments --chunks --chunk-frames is "
                                    "required\n(python -m glreader.farm --help lists every option)\n"), said
    assert not (tmp_path / "out.mkv").exists()


def test_every_numeric_row_takes_its_bounds_and_refuses_past_both_ends(tmp_path, monkeypatch):
    # The farm's command line, every numeric row by its first spelling: the row's edges
    # taken (the farm then stops before Ray: at the output that exists, or a range that
    # overflows with the default length), the values past them refused as a usage error
    # (2), in the library's words as glreader-export says them.
    from test_render import table_edges

    monkeypatch.chdir(tmp_path)
    (tmp_path / "existing.mkv").write_bytes(b"mine")
    rows = [row for row in glreader.export_options() if table_edges(row)]
    assert len(rows) >= 13
    for row in rows:
        flag = row["flags"].split(", ")[0]
        for text, taken in table_edges(row):
            argv = [flag, text, "--chunks", "2", "-o", "existing.mkv"]
            if taken:
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    status = farm.main(argv)
                assert status == 1 and f"{flag} needs " not in err.getvalue(), (argv, err.getvalue())
            else:
                status, said = run(argv)
                words = f"python -m glreader.farm: {flag} needs "
                assert status == 2 and words in said and f", not '{text}'" in said, (argv, said)
    assert (tmp_path / "existing.mkv").read_bytes() == b"mine"
