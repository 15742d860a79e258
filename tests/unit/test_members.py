"""Unit tests of graph/members.py: which mentions of a member's name leave
its call sites known, on lines written after real kernel code."""

from __future__ import annotations

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from killable.graph import members  # noqa: E402


def kind(line: str, name: str, prev: str = "") -> str:
    i = line.index(name)
    return members.classify(line, i, i + len(name), prev)


class TestClassify(unittest.TestCase):
    def test_closed_mentions(self) -> None:
        self.assertEqual(kind("\tret = indio_dev->info->read_raw(indio_dev, chan,", "read_raw"),
                         "call")
        self.assertEqual(kind("\t.read_raw = adxl313_read_raw,", "read_raw"), "store")
        self.assertEqual(kind("\tinfo->read_raw = NULL;", "read_raw"), "store")
        self.assertEqual(kind("\tint (*read_raw)(struct iio_dev *indio_dev,", "read_raw"), "name")
        self.assertEqual(kind("\tif (!indio_dev->info->read_raw)", "read_raw"), "read")
        self.assertEqual(kind("\tif (ops->read_raw && ops->write_raw)", "read_raw"), "read")
        self.assertEqual(kind("\tif (cp->enable != 0x00 && cp->enable != 0x01)", "enable"), "read")
        self.assertEqual(kind("\tif (*grp->open)", "open"), "read")
        self.assertEqual(kind("\t    dai->driver->ops->hw_free)", "hw_free",
                              "\tif (dai->driver->ops &&"), "read")
        self.assertEqual(kind("\treturn read_raw(dev, val);", "read_raw"), "name")

    def test_open_doors(self) -> None:
        # a plain name: open only as a member-calling macro's argument (TestOpenDoors)
        self.assertEqual(kind("\tret = v4l2_subdev_call(sd, video, s_stream, 1);", "s_stream"),
                         "name")
        self.assertEqual(kind("\tint write,", "write"), "name")
        # a copy of the pointer: its calls go through another name
        self.assertEqual(kind("\tfn = ops->read_raw;", "read_raw"), "open")
        self.assertEqual(kind("\tregister_reader(dev, ops->read_raw);", "read_raw"), "open")
        self.assertEqual(kind("\tptr = &ops->read_raw;", "read_raw"), "open")
        self.assertEqual(kind("\treturn ops->read_raw;", "read_raw"), "open")
        self.assertEqual(kind("\t\t\t  ops->read_raw);", "read_raw", "\tregister_reader(dev,"),
                         "open")
        self.assertEqual(kind("\tret = (*ops->read_raw)(dev);", "read_raw"), "open")

    def test_comments_are_not_code(self) -> None:
        self.assertEqual(members.code_part(" * @read_raw: function to request a value"), "")
        self.assertEqual(members.code_part("\tint x; /* read_raw below */"), "\tint x; ")
        self.assertEqual(members.code_part('\tpr_err("unable to read_raw\\"");'), '\tpr_err("");')


class TestOpenDoors(unittest.TestCase):
    def test_tree(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "drivers"))
            os.makedirs(os.path.join(d, "include"))
            os.makedirs(os.path.join(d, "tools"))
            with open(os.path.join(d, "include", "ops.h"), "w") as f:
                f.write("struct ops {\n\tint (*read_raw)(int);\n\tint (*s_stream)(int);\n"
                        "\tint (*get)(int);\n};\n"
                        "/* s_stream is called through call_op() */\n"
                        "#define call_op(o, f, a) ((o)->f(a))\n"
                        "#define call_get(o, a) \\\n\t((o)->get(a))\n")
            with open(os.path.join(d, "drivers", "a.c"), "w") as f:
                f.write("static int a(struct ops *o)\n{\n\tif (!o->read_raw)\n\t\treturn 0;\n"
                        "\treturn o->read_raw(1) + call_op(o, s_stream, 1);\n}\n"
                        "#define call_two(o, m) \\\n\tcall_op(o, m, 2)\n"
                        "static int b(struct ops *o, int write)\n{\n\treturn call_two(o,\n"
                        "\t\tdisable);\n}\n")
            with open(os.path.join(d, "tools", "t.c"), "w") as f:
                f.write("int x = fn(o, read_raw);\n")
            doors = members.open_doors(d, ["read_raw", "s_stream", "get", "write", "disable"])
            macros = members.member_call_macros(d)
        self.assertNotIn("read_raw", doors)    # tools/ is user space
        self.assertEqual(doors["s_stream"], "drivers/a.c:5")
        self.assertEqual(doors["get"], "include/ops.h:9")   # a call in a macro's body
        self.assertNotIn("write", doors)        # a parameter's name
        self.assertEqual(macros, {"call_op", "call_two"})
        self.assertEqual(doors["disable"], "drivers/a.c:11")  # passed on through call_two()


class TestCallerClasses(unittest.TestCase):
    def test_classes(self) -> None:
        callers = {"read_raw": [("drivers/iio/industrialio-core.c", "iio_read_channel_info"),
                                ("drivers/iio/inkern.c", "iio_channel_read")]}
        self.assertEqual(members.caller_classes(["read_raw"], callers, {}),
                         ["mcallers:2",
                          "mcaller:drivers/iio/industrialio-core.c:iio_read_channel_info:read_raw",
                          "mcaller:drivers/iio/inkern.c:iio_channel_read:read_raw"])
        self.assertEqual(members.caller_classes(["read_raw"], callers, {"read_raw": "x.c:3"}),
                         ["mcallers:open:read_raw:x.c:3"])
        many = {"open": [(f"f{i}.c", "g") for i in range(members.MAX_CALLERS + 1)]}
        self.assertEqual(members.caller_classes(["open"], many, {}),
                         [f"mcallers:many:{members.MAX_CALLERS + 1}"])


if __name__ == "__main__":
    unittest.main()


class TestFunctionCalls(unittest.TestCase):
    def test_tree(self) -> None:
        files = {
            "drivers/foo/core.c": "int foo_write(int v)\n{\n\treturn v;\n}\n"
                                  "EXPORT_SYMBOL(foo_exported);\n",
            "drivers/foo/main.c": "static int a(void)\n{\n\treturn foo_write(1) + foo_inl(2);\n}\n"
                                  "static int\nb(struct x *o)\n{\n\treturn o->foo_write(3);\n}\n",
            "drivers/foo/foo.h": "int foo_write(int v);\nextern int foo_asm(int v);\n"
                                 "static inline int foo_inl(int v)\n{\n\treturn foo_hidden(v);\n}\n",
            "arch/x86/foo.S": "\tcall foo_asm\n",
            "drivers/foo/cb.c": "static struct ops o = { .cb = foo_addr };\n",
        }
        with tempfile.TemporaryDirectory() as d:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
                with open(os.path.join(d, rel), "w") as f:
                    f.write(text)
            doors, exported, calls = members.function_calls(
                d, ["foo_write", "foo_hidden", "foo_asm", "foo_addr", "foo_exported", "foo_inl"])
        self.assertEqual(calls["foo_write"], {"drivers/foo/main.c": [3]})   # not ->foo_write()
        self.assertEqual(doors["foo_hidden"], "drivers/foo/foo.h:5")         # a header's inline
        self.assertEqual(doors["foo_asm"], "arch/x86/foo.S:1")
        self.assertEqual(doors["foo_addr"], "drivers/foo/cb.c:1")
        self.assertEqual(exported, {"foo_exported"})
        self.assertNotIn("foo_write", doors)
        self.assertEqual(members.direct_caller_classes("drivers/foo/core.c", calls["foo_write"],
                                                       "", False),
                         ["gcallers:1", "gcall:drivers/foo/main.c:3"])
        self.assertEqual(members.direct_caller_classes("drivers/foo/core.c", calls["foo_write"],
                                                       "", True),
                         ["gcallers:exported", "gcallers:1", "gcall:drivers/foo/main.c:3"])
