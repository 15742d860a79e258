"""Unit tests of graph/members.py: which mentions of a member's name leave
its call sites known, on lines written after real kernel code."""

from __future__ import annotations

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from killable import data  # noqa: E402
from killable.graph import members  # noqa: E402


def doors_in_tree(files: dict[str, str], names: list[str],
                  fields: dict[tuple[str, str], str] | None = None,
                  typedefs: dict[str, str] | None = None) -> members.Doors:
    """open_doors() over a tree of these files (relative path -> text)."""
    with tempfile.TemporaryDirectory() as d:
        for rel, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        return members.open_doors(d, names, fields, typedefs)


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
        self.assertEqual(doors["s_stream"], [("", "drivers/a.c:5")])
        self.assertEqual(doors["get"], [("", "include/ops.h:9")])  # a call in a macro's body
        self.assertNotIn("write", doors)        # a parameter's name
        self.assertEqual(macros, {"call_op", "call_two"})
        self.assertEqual(doors["disable"], [("", "drivers/a.c:11")])  # through call_two()

    def test_doors_in_a_files_own_macro(self) -> None:
        """sound/pci/ca0106/ca_midi.c:20 calls midi->write in its own macro;
        every use passes a struct snd_ca_midi *, so the door is that
        type's.  A use with another type's argument leaves it unknown."""
        src = ("#define ca_midi_write_data(midi, data)\tmidi->write(midi, data, 0)\n"
               "static void ca_midi_output(struct snd_ca_midi *midi, int byte)\n{\n"
               "\tca_midi_write_data(midi, byte);\n}\n"
               "static void ca_midi_cmd(struct snd_ca_midi *midi)\n{\n"
               "\tca_midi_write_data(midi,\n\t\t\t   0x00);\n}\n")
        for extra, want in (("", "snd_ca_midi"),
                            ("static void o(struct other *m)\n{\n"
                             "\tca_midi_write_data(m, 1);\n}\n", "")):
            with tempfile.TemporaryDirectory() as d:
                os.makedirs(os.path.join(d, "sound"))
                with open(os.path.join(d, "sound", "ca_midi.c"), "w") as f:
                    f.write(src + extra)
                doors = members.open_doors(d, ["write"], {})
            self.assertEqual(doors["write"], [(want, "sound/ca_midi.c:1")])

    def test_typed_doors(self) -> None:
        """A door's receiver typed by its file's declarations and the
        fields' types: net/sunrpc/auth_gss/gss_rpc_xdr.c:660 passes the
        flag ctx->open of struct gssx_ctx, and sound/soc/sof/intel/
        hda-dai.c:255 the address of an embedded struct's .hw_params
        (rtd->dpcm[stream].hw_params); neither is a file_operations'
        .open or a snd_soc_dai_ops' .hw_params."""
        fields = {("snd_soc_pcm_runtime", "dpcm"): "snd_soc_dpcm_runtime"}
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "net"))
            with open(os.path.join(d, "net", "x.c"), "w") as f:
                f.write("static int enc(struct xdr_stream *xdr, struct gssx_ctx *ctx)\n{\n"
                        "\terr = gssx_enc_bool(xdr, ctx->open);\n"
                        "\treturn hw(s, &rtd->dpcm[stream].hw_params);\n}\n"
                        "static int q(my_ops_t *ops, struct file_operations *fops)\n{\n"
                        "\tregister_op(fops->open);\n\treturn 0;\n}\n"
                        "static int p(struct snd_pcm_substream *s)\n{\n"
                        "\tstruct snd_soc_pcm_runtime *rtd = asoc(s);\n"
                        "\tregister_op(ops->open);\n"
                        "\tregister_op(s->open);\n}\n"
                        "static int r(struct gssx_call_ctx *ctx)\n{\n\treturn ctx->locale;\n}\n")
            doors = members.open_doors(d, ["open", "hw_params"], fields)
        # ctx is declared twice in the file, each function's own counts;
        # ops has no declaration that says a struct: unknown, so a door for all
        # after a door of unknown type, no other is needed
        self.assertEqual(doors["open"], [("gssx_ctx", "net/x.c:3"),
                                         ("file_operations", "net/x.c:8"), ("", "net/x.c:14")])
        self.assertEqual(doors["hw_params"], [("snd_soc_dpcm_runtime", "net/x.c:4")])
        only_typed = {"open": [("gssx_ctx", "net/x.c:3")]}
        self.assertEqual(members.door_for("file_operations", "open", only_typed), "")
        self.assertEqual(members.door_for("gssx_ctx", "open", only_typed), "net/x.c:3")
        self.assertEqual(members.door_for("", "open", only_typed), "net/x.c:3")
        self.assertEqual(members.door_for("file_operations", "open", doors), "net/x.c:8")
        self.assertEqual(members.door_for("inode_operations", "open", doors), "net/x.c:14")


class TestDoorsThatAreNot(unittest.TestCase):
    """Mentions of a member's name that the first door check took for
    open doors, each written after the real line: a value printed by a
    print function, a union's or an anonymous struct's member, a trace
    event's record, a line inside a block comment, an index with an arrow."""

    def test_printed_value_is_read(self) -> None:
        readers = data.load_value_readers()
        line = "\t\t     n->notifier_call);"
        prev = '\t\tWARN(1, "notifier callback %ps already registered",'
        i = line.index("notifier_call")
        self.assertEqual(members.classify(line, i, i + 13, members.code_part(prev), readers),
                         "read")
        self.assertEqual(members.classify(line, i, i + 13, members.code_part(prev)), "open")
        line = ('\tpr_err("sysctl table check failed: %s/%s %zd %ps\\n", '
                'path, ent->procname, ent->proc_handler);')
        code = members.code_part(line)
        i = code.index("proc_handler")
        self.assertEqual(members.classify(code, i, i + 12, "", readers), "read")
        line = "\tif (unlikely(!func_ptr_is_kernel_text(nb->notifier_call))) {"
        i = line.index("notifier_call")
        self.assertEqual(members.classify(line, i, i + 13, "", readers), "read")
        line = "\tregister_reader(dev, ops->read_raw);"
        i = line.index("read_raw")
        self.assertEqual(members.classify(line, i, i + 8, "", readers), "open")
        line = "\tpr_err(x, register_reader(dev, ops->read_raw));"
        i = line.index("read_raw")
        self.assertEqual(members.classify(line, i, i + 8, "", readers), "open")

    def test_typed_receivers(self) -> None:
        fields = {("vcpu_svm", "shadow_msr_intercept"): "vcpu_svm.shadow_msr_intercept",
                  ("sctp_sack_variable", "gab"): "sctp_gap_ack_block",
                  ("snd_soc_pcm_runtime", "dpcm"): "snd_soc_dpcm_runtime"}
        doors = doors_in_tree({
            "arch/svm.c": ("static void set_msr(struct kvm_vcpu *vcpu, int read, int write)\n{\n"
                           "\tstruct vcpu_svm *svm = to_svm(vcpu);\n"
                           "\tset_bit(slot, svm->shadow_msr_intercept.write);\n"
                           "\t/* Rules for handlers: never\n"
                           "\t   handlers could not have their side-effect (e.g. probe\n"
                           "\t */\n}\n"
                           "static int hw(struct snd_pcm_substream *substream)\n{\n"
                           "\tstruct snd_soc_pcm_runtime *fe = asoc(substream);\n"
                           "\tp = &fe->dpcm[substream->stream].hw_params;\n}\n"),
            "net/outq.c": ("static void gab(struct sctp_chunk *chunk)\n{\n"
                           "\tunion sctp_sack_variable *frags;\n"
                           "\tx = sctp_tsnmap(ntohs(frags[i].gab.start) + 1);\n}\n"),
            "net/trace.h": ("TRACE_EVENT(rdev_set_coalesce,\n"
                            "\tTP_printk(WIPHY_PR_FMT \", enable: %u\", WIPHY_PR_ARG,\n"
                            "\t\t  __entry->enable)\n);\n"),
        }, ["write", "probe", "hw_params", "start", "enable"], fields)
        self.assertEqual(doors["write"], [("vcpu_svm.shadow_msr_intercept", "arch/svm.c:4")])
        self.assertNotIn("probe", doors)
        self.assertEqual(doors["hw_params"], [("snd_soc_dpcm_runtime", "arch/svm.c:12")])
        self.assertEqual(doors["start"], [("sctp_gap_ack_block", "net/outq.c:4")])
        self.assertEqual(doors["enable"], [(members.TRACE_ENTRY, "net/trace.h:3")])
        for member in ("write", "hw_params", "start", "enable"):
            self.assertEqual(members.door_for("file_operations", member, doors), "")

    def test_macro_receiver_declared_by_its_users(self) -> None:
        # drivers/net/wireless/ath/key.c:26: REG_WRITE's common->ops->write,
        # where every function using it declares struct ath_common *common;
        # one user that does not declare it leaves the door untyped.
        src = ("#define REG_WRITE(_ah, _reg, _val)\t(common->ops->write)(_ah, _val, _reg)\n"
               "static void kd(struct ath_common *common, u8 idx)\n{\n"
               "\tstruct ath_hw *ah = common->ah;\n\tREG_WRITE(ah, 1, 0);\n}\n"
               "static void ks(struct ath_hw *ah)\n{\n"
               "\tstruct ath_common *common = ath9k_hw_common(ah), *other;\n"
               "\tREG_WRITE(ah, 2, 0);\n}\n")
        fields = {("ath_common", "ops"): "ath_ops"}
        for extra, want in (("", "ath_ops"),
                            ("static void kz(struct ath_hw *ah)\n{\n\tREG_WRITE(ah, 3, 0);\n}\n",
                             "")):
            doors = doors_in_tree({"drivers/key.c": src + extra}, ["write"], fields)
            self.assertEqual(doors["write"], [(want, "drivers/key.c:1")])

    def test_names_after_the_first_declared(self) -> None:
        # sound/soc/intel/avs/pcm.c: struct snd_soc_pcm_runtime *fe, *be;
        found = members.Declarations("/nonexistent").found(
            "\tstruct snd_soc_pcm_runtime *fe, *be;\n\tstruct a x[2], y = f(1, *z);\n")
        self.assertEqual(found["be"], {"snd_soc_pcm_runtime"})
        self.assertEqual(found["y"], {"a"})
        self.assertNotIn("z", found)

    def test_typedef_receiver(self) -> None:
        # sound/isa/wavefront/wavefront_midi.c:234, midi->open of a typedef'd
        # struct; a typedef the tree does not know stays unknown.
        doors = doors_in_tree({"sound/wm.c": ("static void out(snd_wavefront_midi_t *midi)\n{\n"
                                              "\tguard(spinlock_irqsave)(&midi->open);\n}\n"
                                              "static void in(other_t *o)\n{\n"
                                              "\tlock(&o->close);\n}\n")},
                              ["open", "close"], {},
                              {"snd_wavefront_midi_t": "_snd_wavefront_midi"})
        self.assertEqual(doors["open"], [("_snd_wavefront_midi", "sound/wm.c:3")])
        self.assertEqual(doors["close"], [("", "sound/wm.c:7")])


class TestCallerClasses(unittest.TestCase):
    def test_classes(self) -> None:
        callers = {"read_raw": [("drivers/iio/industrialio-core.c", "iio_read_channel_info"),
                                ("drivers/iio/inkern.c", "iio_channel_read")]}
        self.assertEqual(members.caller_classes([("iio_info", "read_raw")], callers, {}),
                         ["mcallers:2",
                          "mcaller:drivers/iio/industrialio-core.c:iio_read_channel_info:read_raw",
                          "mcaller:drivers/iio/inkern.c:iio_channel_read:read_raw"])
        self.assertEqual(members.caller_classes([("iio_info", "read_raw")], callers,
                                                {"read_raw": [("", "x.c:3")]}),
                         ["mcallers:open:read_raw:x.c:3"])
        # a door in another struct type's member of that name
        self.assertEqual(members.caller_classes([("iio_info", "read_raw")], callers,
                                                {"read_raw": [("rapl_ops", "x.c:3")]})[0],
                         "mcallers:2")
        many = {"open": [(f"f{i}.c", "g") for i in range(members.MAX_CALLERS + 1)]}
        self.assertEqual(members.caller_classes([("", "open")], many, {}),
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
