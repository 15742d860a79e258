"""Unit tests of graph/callgraph.py on small hand-made graphs."""

from __future__ import annotations

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from killable import data  # noqa: E402
from killable.graph import callgraph, reach  # noqa: E402
from killable.scan import csource  # noqa: E402


def graph(n: int, calls: dict[int, list[int]], mnf_roots: dict[int, set[str]]) -> callgraph.Graph:
    g = callgraph.Graph()
    g.files = ["drivers/thunderbolt/x.c"] * n
    g.funcs = [f"f{i}" for i in range(n)]
    for u in range(n):
        g.edges.add(u, sorted(calls.get(u, [])))
    g.edges.close(n)
    g.mnf_roots = mnf_roots
    return g


class TestUnknownEntries(unittest.TestCase):
    def test_a_probe_the_graph_does_not_know_reaches_through_a_member(self) -> None:
        # thunderbolt: the hotplug work (0) and nhi_probe() (1), which no
        # root table names, through cm_ops->start (2), both reach
        # tb_switch_add() (3) and its helper (4); another work (5) alone
        # reaches its helper (6).
        g = graph(7, {0: [3], 1: [2], 2: [3], 3: [4], 5: [6]}, {0: {"work"}, 5: {"work"}})
        unknown = callgraph.unknown_entries(g)
        self.assertEqual([i for i in range(7) if unknown[i]], [1, 2, 3, 4])

    def test_roots_are_no_unknown_entries(self) -> None:
        g = graph(3, {0: [1], 2: [1]}, {0: {"work"}, 2: {"kthread"}})
        self.assertEqual(list(callgraph.unknown_entries(g)), [0, 0, 0])


class TestTypeFacts(unittest.TestCase):
    def test_embedded_fields_are_typed(self) -> None:
        # include/sound/soc.h: an array of embedded structs and a pointer,
        # both typed; a function pointer's parameters are no fields.
        text = ("struct snd_soc_pcm_runtime {\n\tstruct snd_soc_card *card;\n"
                "\tstruct snd_soc_dpcm_runtime dpcm[SNDRV_PCM_STREAM_LAST + 1];\n"
                "\tint (*open)(struct snd_pcm_substream *substream);\n"
                "\tconst struct snd_soc_ops ops;\n};\n")
        fields = callgraph.type_facts(text, [])["fields"]
        self.assertEqual(fields, [["snd_soc_pcm_runtime", "card", "snd_soc_card"],
                                  ["snd_soc_pcm_runtime", "dpcm", "snd_soc_dpcm_runtime"],
                                  ["snd_soc_pcm_runtime", "ops", "snd_soc_ops"]])

    def test_typedefs(self) -> None:
        # sound/isa/wavefront: snd_wavefront_midi_t; an untagged body names
        # itself; a pointer typedef names no struct.
        text = ("typedef struct _snd_wavefront_midi snd_wavefront_midi_t;\n"
                "typedef struct { int x; } plain_t;\n"
                "typedef struct scsi_qla_host {\n\tint a;\n} scsi_qla_host_t;\n"
                "typedef struct node *node_p;\n")
        self.assertEqual(callgraph.type_facts(text, [])["typedefs"],
                         [["plain_t", "plain_t"], ["scsi_qla_host_t", "scsi_qla_host"],
                          ["snd_wavefront_midi_t", "_snd_wavefront_midi"]])

    def test_unions_and_anonymous_members(self) -> None:
        # arch/x86/kvm/svm/svm.h's shadow_msr_intercept, include/net/sctp/
        # command.h's union sctp_arg, and an unnamed union whose members
        # are the outer struct's own, as in C.
        text = ("struct vcpu_svm {\n\tstruct kvm_vcpu vcpu;\n\tstruct {\n"
                "\t\tDECLARE_BITMAP(read, MAX_DIRECT_ACCESS_MSRS);\n"
                "\t\tstruct msr_list *list;\n\t} shadow_msr_intercept;\n"
                "\tunion {\n\t\tstruct vmcb *vmcb;\n\t\tint raw;\n\t};\n};\n"
                "union sctp_arg {\n\tvoid *zero_all;\n\tstruct sctp_init_chunk *init;\n};\n"
                "struct sctp_cmd {\n\tunion sctp_arg obj;\n\tenum sctp_verb verb;\n};\n")
        facts = callgraph.type_facts(text, [])
        # The graph binds member calls by these, read as before (an anonymous
        # member's struct fields are the outer struct's): a call typed
        # through a union would miss what a designated initializer stores
        # there untyped, and the graph would lose callers.
        self.assertEqual(facts["fields"], [["vcpu_svm", "list", "msr_list"],
                                           ["vcpu_svm", "vcpu", "kvm_vcpu"],
                                           ["vcpu_svm", "vmcb", "vmcb"]])
        self.assertEqual(facts["door_fields"], [["sctp_arg", "init", "sctp_init_chunk"],
                                                ["sctp_cmd", "obj", "sctp_arg"],
                                                ["vcpu_svm", "shadow_msr_intercept",
                                                 "vcpu_svm.shadow_msr_intercept"],
                                                ["vcpu_svm.shadow_msr_intercept", "list",
                                                 "msr_list"]])


class TestAttributeRoots(unittest.TestCase):
    def test_the_helpers_attribute_macros_name_their_functions(self) -> None:
        # drivers/hwmon/adm1026.c:533 `static SENSOR_DEVICE_ATTR_RW(in0_min,
        # in_min, 0);` makes in_min_show() and in_min_store() sysfs
        # attributes, as DEVICE_ATTR_RW(analog_out) does analog_out_*();
        # an array of SENSOR_ATTR_2() names its functions outright.
        funcs = ["in_min_show", "in_min_store", "temp_show", "fan_div_show", "fan_div_store",
                 "calib_store", "idle_show"]
        text = "".join(f"static ssize_t {f}(struct device *d)\n{{\n\treturn 0;\n}}\n"
                       for f in funcs)
        text += ("static SENSOR_DEVICE_ATTR_RW(in0_min, in_min, 0);\n"
                 "static SENSOR_DEVICE_ATTR_2_RO(temp1_input, temp, 0, 1);\n"
                 "static struct sensor_device_attribute_2 sda[] = {\n"
                 "\tSENSOR_ATTR_2(fan1_div, 0644, fan_div_show, fan_div_store, 0, 1),\n};\n"
                 "static IIO_DEVICE_ATTR_WO(calib, 0);\n"
                 "static struct kobj_attribute idle_attr = __ATTR_RO(idle);\n")
        table = data.load_root_tables()
        facts = csource.scan_text(text, "drivers/hwmon/x.c", table.interesting())
        roots = {(r.func, r.kind) for r in reach.roots_in(facts, table.syscall)}
        self.assertEqual(roots, {(f, "sysfs") for f in funcs})


class TestStaleFacts(unittest.TestCase):
    def test_facts_read_against_other_root_tables_are_scanned_again(self) -> None:
        # An older csource's facts of the same file are reused; facts read
        # against another syscall-roots.tsv are not: they lack the roots a
        # new row names (SENSOR_DEVICE_ATTR_RW's in_min_store()).
        import tempfile
        table = data.load_root_tables()
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "k"))
            with open(os.path.join(tmp, "k", "x.c"), "w") as f:
                f.write("static ssize_t in_min_store(struct device *d)\n{\n\treturn 0;\n}\n"
                        "static SENSOR_DEVICE_ATTR_RW(in0_min, in_min, 0);\n")

            def scan(version: str, tables: str) -> dict:
                job = callgraph.ScanJob(os.path.join(tmp, "k"), "x.c", os.path.join(tmp, "c"),
                                        version, table.interesting(), table, True, False, tables)
                return callgraph.scan_both(job)[1]

            first = scan("0" * 16, "tablesA")
            self.assertFalse(first.get("stale"))
            self.assertTrue(scan("1" * 16, "tablesA").get("stale"))
            self.assertFalse(scan("2" * 16, "tablesB").get("stale"))




class TestPrunedWithCallers(unittest.TestCase):
    """The audit's patch pass keeps the bodies that call a site's function
    (after o2nm_lock_subsystem(), fs/ocfs2/cluster/nodemanager.c: a void
    function that learns to fail, its caller next to it in the file)."""

    TEXT = ("static void lock_sub(struct s *s)\n{\n\tmutex_lock(&s->m);\n}\n\n"
            "static ssize_t num_store(struct s *s)\n{\n\tlock_sub(s);\n\treturn 0;\n}\n\n"
            "static int top(struct s *s)\n{\n\treturn num_store(s);\n}\n\n"
            "static int other(void)\n{\n\treturn 1;\n}\n")

    def test_callers_kept_transitively(self) -> None:
        keep = csource.with_callers(self.TEXT, {3})
        self.assertEqual(keep, {3, 6, 12})
        pruned = csource.prune_bodies(self.TEXT, keep)
        self.assertIn("lock_sub(s);", pruned)
        self.assertIn("return num_store(s);", pruned)
        self.assertNotIn("return 1;", pruned)
        self.assertEqual(pruned.count("\n"), self.TEXT.count("\n"))

    def test_no_site_no_callers(self) -> None:
        self.assertEqual(csource.with_callers(self.TEXT, set()), set())



def _write_tree_reach_many(path: str, by_file: dict[str, str], times: int) -> None:
    for _ in range(times):
        reach.write_indexed(path, by_file)


class TestIndexedReachConcurrentWriters(unittest.TestCase):
    """The shards of one audit (make audit-shard, GNU parallel) write the
    same whole-tree reach file at once: a shared temporary name let one
    writer rename another's file away (CI at stop 37)."""

    def setUp(self) -> None:
        import tempfile
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "tree.tsv")
        self.by_file = {f"drivers/x/f{i}.c": f"f{i}\tsyscall\n" * (i + 1) for i in range(50)}

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_no_fixed_temporary_name(self) -> None:
        # A directory where the old fixed name would go: a unique name never meets it.
        os.mkdir(self.path + ".tmp")
        reach.write_indexed(self.path, self.by_file)
        index = reach.read_index(self.path)
        self.assertEqual(reach.read_indexed(self.path, index, "drivers/x/f3.c"),
                         ["f3\tsyscall"] * 4)

    def test_parallel_writers(self) -> None:
        import multiprocessing
        ctx = multiprocessing.get_context("fork")
        procs = [ctx.Process(target=_write_tree_reach_many, args=(self.path, self.by_file, 30))
                 for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        self.assertEqual([p.exitcode for p in procs], [0, 0, 0, 0])
        index = reach.read_index(self.path)
        self.assertEqual(len(index), 50)
        self.assertEqual(sorted(os.listdir(self.tmp.name)), ["tree.tsv", "tree.tsv.idx"])


class TestPrunedDirectiveComment(unittest.TestCase):
    """lane2_associate_ind() in net/atm/lec.c: `#if 0\t/*` opens a comment
    on the directive line, and the body around it is blanked.  The kept
    directive must not leave a comment open: spatch's lexer gave up on the
    whole file ("lexing: empty token") and the audit lost its sites."""

    TEXT = ("static void assoc(struct net_device *dev)\n{\n#if 0\n\tint i = 0;\n#endif\n"
            "\tstruct lec_priv *priv = netdev_priv(dev);\n#if 0\t\t\t\t/*\n"
            "\t\t\t\t * Why have the TLVs\n\t\t\t\t */\n\tkfree(priv);\n#endif /* x */\n}\n\n"
            "static int ioctl(struct s *s)\n{\n\tmutex_lock(&s->m);\n\treturn 0;\n}\n")

    def test_no_comment_left_open(self) -> None:
        pruned = csource.prune_bodies(self.TEXT, {16})
        self.assertEqual(pruned.count("\n"), self.TEXT.count("\n"))
        self.assertIn("mutex_lock(&s->m);", pruned)
        self.assertNotIn("kfree", pruned)
        self.assertIn("#if 0", pruned)
        self.assertIn("#endif /* x */", pruned)
        opened = [m.start() for m in re.finditer(r"/\*", pruned)]
        for at in opened:
            self.assertNotEqual(pruned.find("*/", at + 2), -1, pruned)
        self.assertEqual(len(opened), 1)

    def test_closed_comment_on_directive_kept(self) -> None:
        self.assertEqual(csource.directive_without_open_comment("#endif /* A */"), "#endif /* A */")
        self.assertEqual(csource.directive_without_open_comment("#if 0 /* a */ /* b"),
                         "#if 0 /* a */     ")


if __name__ == "__main__":
    unittest.main()
