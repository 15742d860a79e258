"""Unit tests of the verdict checks (scripts/killable/verdicts) on small C.

Each test writes a tiny driver to a temporary file, names one sleep site in
it, and asks the verdict engine directly, without spatch: the checks are
functions of the site, the file's facts and the tables.
"""

from __future__ import annotations

import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from killable.scan import csource  # noqa: E402
from killable.verdicts import body, checks, plumbing, rules  # noqa: E402

FOPS = """
static const struct file_operations foo_fops = {
	.unlocked_ioctl = foo_ioctl,
	.release = foo_release,
};
"""


class VerdictCase(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def verdict(self, code: str, func: str, prim: str = "mutex_lock", args: str = "",
                nth: int = 1, reach: str = "") -> str:
        """The verdict of the nth call of prim in func."""
        path = os.path.join(self.tmp.name, "t.c")
        text = textwrap.dedent(code) + FOPS
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        lines = text.split("\n")
        seen = 0
        in_func = False
        for n, line in enumerate(lines, 1):
            if line.startswith(("static", "int", "long", "void")) and f"{func}(" in line:
                in_func = True
            if in_func and f"{prim}(" in line:
                seen += 1
                if seen == nth:
                    col = line.index(prim)
                    k = rules.Rules()
                    if reach:
                        rpath = os.path.join(self.tmp.name, "reach.tsv")
                        with open(rpath, "w", encoding="utf-8") as f:
                            f.write(reach)
                        k.load_external(rpath)
                    s = rules.Site(path, n, col, col + len(prim), prim, func, args=args)
                    return k.judge(s)
        raise AssertionError(f"no call {nth} of {prim} in {func}")


class TestCallerLock(VerdictCase):
    def test_unlock_wait_relock_is_refused(self) -> None:
        # get_chip() in drivers/mtd/chips/cfi_cmdset_0002.c drops the
        # caller's mutex, sleeps and takes it again.
        v = self.verdict("""
            static int get_chip(struct chip *chip)
            {
            	if (chip->state != FL_READY) {
            		mutex_unlock(&chip->mutex);
            		schedule();
            		mutex_lock(&chip->mutex);
            		return -EAGAIN;
            	}
            	return 0;
            }
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	struct chip *chip = f->private_data;
            	int ret;

            	mutex_lock(&chip->mutex);
            	ret = get_chip(chip);
            	mutex_unlock(&chip->mutex);
            	return ret;
            }
            """, "get_chip", args="&chip->mutex")
        self.assertTrue(v.startswith("refused: get_chip() releases chip->mutex"), v)

    def test_own_lock_taken_again_is_not_refused(self) -> None:
        v = self.verdict("""
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	struct chip *chip = f->private_data;

            	if (!chip)
            		return -ENODEV;
            	mutex_lock(&chip->mutex);
            	chip->a = 1;
            	mutex_unlock(&chip->mutex);
            	mutex_lock(&chip->mutex);
            	chip->b = 2;
            	mutex_unlock(&chip->mutex);
            	return 0;
            }
            """, "foo_ioctl", args="&chip->mutex", nth=2)
        self.assertFalse(v.startswith("refused"), v)


class TestNoErrno(VerdictCase):
    HELPER = textwrap.dedent("""
        static int get_timeout(struct wd *wd)
        {
        	int timeout;

        	mutex_lock(&wd->lock);
        	timeout = wd->preset * 60;
        	mutex_unlock(&wd->lock);
        	return timeout;
        }
        static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
        {
        	struct wd *wd = f->private_data;
        	int ret;

        	ret = get_timeout(wd);
        	if (ret < 0)
        		return ret;
        	return put_user(ret, (int __user *)arg);
        }
        """)

    def test_value_returning_helper_is_manual(self) -> None:
        # watchdog_get_timeout() in drivers/hwmon/fschmd.c
        v = self.verdict(self.HELPER, "get_timeout", args="&wd->lock")
        self.assertEqual(v, "manual: get_timeout() never returns a negative errno; its "
                            "callers would take -EINTR for a value")

    def test_helper_with_errno_path_passes(self) -> None:
        code = self.HELPER.replace("\tint timeout;\n", "\tint timeout;\n\n\tif (!wd)\n"
                                   "\t\treturn -ENODEV;\n")
        v = self.verdict(code, "get_timeout", args="&wd->lock")
        self.assertNotIn("negative errno", v)

    def test_call_in_a_condition_is_no_value(self) -> None:
        # dev_pm_qos_get_user_latency_tolerance(): its s32 is a latency,
        # -1 for no constraint, chosen by a condition that calls IS_ERR_OR_NULL.
        code = self.HELPER.replace("\ttimeout = wd->preset * 60;",
                                   "\ttimeout = IS_ERR_OR_NULL(wd->qos) || !wd->req ?\n"
                                   "\t\t-1 : wd->req->prio;")
        v = self.verdict(code, "get_timeout", args="&wd->lock")
        self.assertIn("never returns a negative errno", v)


class TestEffectsBeforeSleep(VerdictCase):
    def ioctl(self, before: str) -> str:
        return self.verdict(textwrap.dedent("""
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	struct foo *foo = f->private_data;
            	struct foo_req req;
            	struct foo_buf *buf;

            	if (copy_from_user(&req, (void __user *)arg, sizeof(req)))
            		return -EFAULT;
            %s
            	mutex_lock(&foo->lock);
            	foo->req = req;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            """) % textwrap.indent(before, "\t"), "foo_ioctl", args="&foo->lock")

    def test_unknown_call_is_manual(self) -> None:
        # a call no table, header or file knows (a driver's kick of its
        # hardware, defined in another file)
        v = self.ioctl("foo_kick_hw(foo);\n")
        self.assertTrue(v.startswith("manual: foo_kick_hw() is called before"), v)

    def test_shared_write_is_manual(self) -> None:
        # adb.c: atomic_inc(&state->n_pending) before down(); a plain store here
        v = self.ioctl("foo->pending++;\n")
        self.assertTrue(v.startswith("manual: foo->pending is written before"), v)

    def test_reads_and_local_struct_pass(self) -> None:
        v = self.ioctl("req.flags = 0;\nif (test_bit(1, &foo->flags))\n\treq.flags = 1;\n")
        self.assertEqual(v, "converted")

    def test_write_into_own_allocation_passes(self) -> None:
        v = self.ioctl("buf = kzalloc(sizeof(*buf), GFP_KERNEL);\nbuf->len = 1;\n")
        self.assertNotIn("is written", v)

    def test_pure_static_helper_passes(self) -> None:
        code = """
            static bool foo_ready(struct foo *foo)
            {
            	return readl(foo->regs) & 1;
            }
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	struct foo *foo = f->private_data;

            	if (!foo_ready(foo))
            		pr_debug("not ready\\n");
            	mutex_lock(&foo->lock);
            	foo->n = 0;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            """
        self.assertEqual(self.verdict(code, "foo_ioctl", args="&foo->lock"), "converted")

    def test_parser_into_what_a_parameter_points_to_is_a_store(self) -> None:
        # hid-steam's steam_param_set_lizard_mode(): param_set_bool(val, kp)
        # is kstrtobool(val, kp->arg), which sets the module parameter
        # before the lock; a helper of the file here.
        code = """
            static int foo_set_bool(const char *val, const struct kernel_param *kp)
            {
            	return kstrtobool(val, kp->arg);
            }
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	const struct kernel_param *kp = f->private_data;
            	int ret;

            	ret = foo_set_bool("1", kp);
            	if (ret)
            		return ret;
            	mutex_lock(&foo_lock);
            	foo_apply_all();
            	mutex_unlock(&foo_lock);
            	return 0;
            }
            """
        v = self.verdict(code, "foo_ioctl", args="&foo_lock")
        self.assertTrue(v.startswith("manual: foo_set_bool() is called before the sleep"), v)


    def test_call_tested_by_the_exit_is_before_the_window(self) -> None:
        # hostfs_open(): `fd = open_file(...); __putname(name); if (fd < 0)
        # return fd;` then the lock: the exit is open_file()'s own failure,
        # so it does not show that the fd needs no undo.
        v = self.ioctl("fd = foo_open_host(foo, req.name);\n"
                       "kfree(req.name);\n"
                       "if (fd < 0)\n\treturn fd;\n")
        self.assertTrue(v.startswith("manual: foo_open_host() is called before"), v)


    def test_caller_writes_before_the_call_is_manual(self) -> None:
        # adp8860_bl_l1_daylight_max_store() parses into
        # data->cached_daylight_max, then calls adp8860_store(), whose lock
        # would fail with the cached value changed and the register not.
        code = """
            static ssize_t foo_store(struct device *dev, const char *buf,
            			 size_t count, int reg)
            {
            	struct foo *data = dev_get_drvdata(dev);
            	unsigned long val;
            	int ret;

            	ret = kstrtoul(buf, 10, &val);
            	if (ret)
            		return ret;
            	mutex_lock(&data->lock);
            	foo_write(data->client, reg, val);
            	mutex_unlock(&data->lock);
            	return count;
            }
            static ssize_t max_store(struct device *dev, struct device_attribute *attr,
            			 const char *buf, size_t count)
            {
            	struct foo *data = dev_get_drvdata(dev);
            	int ret = kstrtoul(buf, 10, &data->cached_max);

            	if (ret)
            		return ret;
            	return foo_store(dev, buf, count, FOO_MAX);
            }
            static DEVICE_ATTR_WO(max);
            """
        v = self.verdict(code, "foo_store", args="&data->lock")
        self.assertTrue(v.startswith("manual: max_store(): data->cached_max is written by "
                                     "kstrtoul() before it calls foo_store()"), v)

    def test_caller_effects_before_a_call_that_already_fails(self) -> None:
        # Written after stm32_adfsdm_dai_prepare() (sound/soc/stm/
        # stm32_adfsdm.c; a sysfs store here, a syscall root), which stops
        # the iio callbacks, then calls iio_write_channel_attribute(), which
        # already fails after its lock (-ENODEV).  That existing error is
        # no proof the caller's state after it is fine: the rule that said
        # so (errors_flow) was withdrawn twice after review
        # (mdev_device_remove(): remove_store() has deleted its own
        # attribute before the call; fw_upload_start()'s -EBUSY), so the
        # caller's effect keeps the site manual.
        code = """
            static int foo_write_attr(struct foo *chan, int val)
            {
            	int ret;

            	mutex_lock(&chan->lock);
            	if (!chan->info) {
            		ret = -ENODEV;
            		goto err_unlock;
            	}
            	ret = foo_hw_write(chan, val);
            err_unlock:
            	mutex_unlock(&chan->lock);
            	return ret;
            }
            static ssize_t prepare_store(struct device *dev, struct device_attribute *attr,
            			     const char *buf, size_t count)
            {
            	struct foo_priv *priv = dev_get_drvdata(dev);
            	int ret;

            	if (priv->active) {
            		foo_stop_all_cb(priv->cb);
            		priv->active = false;
            	}
            	ret = foo_write_attr(priv->chan, 1);
            	if (ret < 0) {
            		dev_err(dev, "failed: %d\\n", ret);
            		return ret;
            	}
            	return count;
            }
            static DEVICE_ATTR_WO(prepare);
            """
        v = self.verdict(code, "foo_write_attr", args="&chan->lock")
        self.assertTrue(v.startswith("manual: prepare_store(): foo_stop_all_cb() is called"), v)

    def test_caller_effects_its_failure_branch_undoes(self) -> None:
        # Written after fbcon_open() (drivers/video/fbdev/core/fbcon.c):
        # lock_fb_info() before ->fb_open(), unlock_fb_info() in the branch
        # for its failure.  The kill takes that branch: nothing is left.
        code = """
            static int foo_hw_open(struct foo_info *info)
            {
            	mutex_lock(&info->hw_lock);
            	info->users++;
            	mutex_unlock(&info->hw_lock);
            	return 0;
            }
            static ssize_t open_store(struct device *dev, struct device_attribute *attr,
            			  const char *buf, size_t count)
            {
            	struct foo_info *info = dev_get_drvdata(dev);

            	lock_foo_info(info);
            	if (info->can_open && foo_hw_open(info)) {
            		unlock_foo_info(info);
            		return -ENODEV;
            	}
            	unlock_foo_info(info);
            	return count;
            }
            static DEVICE_ATTR_WO(open);
            """
        self.assertEqual(self.verdict(code, "foo_hw_open", args="&info->hw_lock"), "converted")
        # Undone only on success, or on another object: manual.
        for before, after in (("unlock_foo_info(info);\n            \t\treturn -ENODEV;",
                               "return -ENODEV;"),
                              ("unlock_foo_info(info);\n            \t\treturn -ENODEV;",
                               "unlock_foo_info(info->parent);\n            \t\treturn -ENODEV;"),
                              ("info->can_open && foo_hw_open(info)",
                               "info->can_open && !foo_hw_open(info)")):
            changed = code.replace(before, after)
            self.assertNotEqual(changed, code)
            v = self.verdict(changed, "foo_hw_open", args="&info->hw_lock")
            self.assertTrue(v.startswith("manual: open_store(): lock_foo_info() is called"), v)
        # `ret = call(); if (ret) goto label;`, where the label undoes it.
        assigned = code.replace(
            "\tif (info->can_open && foo_hw_open(info)) {\n            \t\tunlock_foo_info(info);"
            "\n            \t\treturn -ENODEV;\n            \t}",
            "\tret = foo_hw_open(info);\n            \tif (ret < 0)\n            \t\tgoto out;").replace(
            "\tunlock_foo_info(info);\n            \treturn count;",
            "\tunlock_foo_info(info);\n            \treturn count;\n            out:\n"
            "            \tunlock_foo_info(info);\n            \treturn ret;").replace(
            "struct foo_info *info = dev_get_drvdata(dev);", "struct foo_info *info = dev_get_drvdata(dev);\n"
            "            \tint ret;")
        self.assertNotEqual(assigned, code)
        self.assertEqual(self.verdict(assigned, "foo_hw_open", args="&info->hw_lock"), "converted")

    def test_an_open_writes_the_file_it_opens(self) -> None:
        # fb_open() (drivers/video/fbdev/core/fbmem.c:1400-1440) sets
        # file->private_data before ->fb_open(): when the open fails,
        # do_dentry_open() drops that file without ->release.
        code = """
            static int foo_hw_open(struct foo_info *info)
            {
            	mutex_lock(&info->hw_lock);
            	info->users++;
            	mutex_unlock(&info->hw_lock);
            	return 0;
            }
            static int foo_open(struct inode *inode, struct file *file)
            {
            	struct foo_info *info = inode->i_private;
            	int res;

            	file->private_data = info;
            	res = foo_hw_open(info);
            	return res;
            }
            static const struct file_operations foo_fops = {
            	.open = foo_open,
            };
            """
        self.assertEqual(self.verdict(code, "foo_hw_open", args="&info->hw_lock"), "converted")
        # The same from a ->write: the file lives on.
        write = code.replace("static int foo_open(struct inode *inode, struct file *file)",
                             "static ssize_t foo_write(struct file *file, const char __user *buf, "
                             "size_t n, loff_t *pos)").replace(".open = foo_open", ".write = foo_write")
        self.assertNotEqual(write, code)
        v = self.verdict(write, "foo_hw_open", args="&info->hw_lock")
        self.assertTrue(v.startswith("manual: foo_write(): file->private_data is written"), v)

    def test_a_count_raised_before_and_lowered_after_is_held(self) -> None:
        # spufs_create_context() (arch/powerpc/platforms/cell/spufs/
        # inode.c:442-485): gang->alive++ before the affinity lock, and
        # `if (ret && gang) gang->alive--;` at out_aff_unlock; the earlier
        # `if (!gang) return -EINVAL;` exits only where nothing was raised.
        code = """
            static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
            {
            	struct foo_gang *gang = file->private_data;
            	int ret;

            	if (gang) {
            		if (!gang->alive)
            			return -ENOENT;
            		gang->alive++;
            	}
            	if (arg) {
            		if (!gang)
            			return -EINVAL;
            		mutex_lock(&gang->aff_mutex);
            	}
            	ret = foo_mkdir(gang);
            	if (arg)
            		mutex_unlock(&gang->aff_mutex);
            	if (ret && gang)
            		gang->alive--;
            	return ret;
            }
            static const struct file_operations foo_fops = {
            	.unlocked_ioctl = foo_ioctl,
            };
            """
        v = self.verdict(code, "foo_ioctl", args="&gang->aff_mutex")
        self.assertEqual(v, "manual: gang->alive is raised before the sleep and lowered after "
                            "it; an early return would skip that")

    def test_a_parameter_released_after_the_sleep_is_held(self) -> None:
        # ocfs2_info_freefrag_scan_bitmap() (fs/ocfs2/ioctl.c:551-627)
        # locks the inode its caller looked up and ends in iput(gb_inode)
        # at bail:, the caller's reference.
        code = """
            static int foo_scan(struct foo_super *osb, struct inode *gb_inode)
            {
            	int status = 0;

            	inode_lock(gb_inode);
            	status = foo_read(osb, gb_inode);
            	if (status)
            		goto bail;
            	status = foo_count(osb, gb_inode);
            bail:
            	inode_unlock(gb_inode);
            	iput(gb_inode);
            	return status;
            }
            static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
            {
            	struct foo_super *osb = file->private_data;
            	struct inode *gb_inode = foo_get_system_inode(osb);

            	if (!gb_inode)
            		return -EIO;
            	return foo_scan(osb, gb_inode);
            }
            static const struct file_operations foo_fops = {
            	.unlocked_ioctl = foo_ioctl,
            };
            """
        v = self.verdict(code, "foo_scan", prim="inode_lock", args="gb_inode")
        self.assertEqual(v, "manual: the parameter gb_inode is released on the way out "
                            "(iput()), not taken here; an early return would skip that")
        # dlm_user_adopt_orphan() (fs/dlm/lock.c:5905-5970): `out:
        # kfree(ua_tmp);`, a parameter guarded by its own test, the same.
        guarded = code.replace("\tiput(gb_inode);", "\tif (gb_inode)\n            \t\tkfree(gb_inode);")
        self.assertNotEqual(guarded, code)
        v = self.verdict(guarded, "foo_scan", prim="inode_lock", args="gb_inode")
        self.assertTrue(v.startswith("manual: the parameter gb_inode is released on the way out"), v)
        # A release on some paths only is no handover: pn_sock_unbind_res()
        # (net/phonet/socket.c:650-675) puts the table's reference when it
        # cleared the entry; video_open() (drivers/media/platform/qcom/
        # camss/camss-video.c:830-880) releases its own fh when it failed.
        for cond in ("if (status == 0)", "if (status)"):
            some = code.replace("\tiput(gb_inode);", "\t%s\n            \t\tiput(gb_inode);" % cond)
            self.assertEqual(self.verdict(some, "foo_scan", prim="inode_lock", args="gb_inode"),
                             "converted")
        # Nor is a release in the middle (genlmsg_put() fills a message).
        middle = code.replace("\tstatus = foo_count(osb, gb_inode);",
                              "\tstatus = foo_count(osb, gb_inode);\n            \tiput(gb_inode);").replace(
            "\tinode_unlock(gb_inode);\n            \tiput(gb_inode);", "\tinode_unlock(gb_inode);")
        self.assertNotEqual(middle, code)
        self.assertEqual(self.verdict(middle, "foo_scan", prim="inode_lock", args="gb_inode"),
                         "converted")

    LOOP = """
        static ssize_t eject_store(struct device *dev, struct device_attribute *attr,
        			   const char *buf, size_t len)
        {
        	struct foo_module *module = dev_get_drvdata(dev);
        	struct foo_intf *intf;
        	int i;

        	for (i = 0; i < module->num_interfaces; ++i) {
        		intf = module->interfaces[i];
        		mutex_lock(&intf->mutex);
        		%s
        		mutex_unlock(&intf->mutex);
        	}
        	return len;
        }
        static DEVICE_ATTR_WO(eject);
        """

    def test_loop_rounds_before_the_sleep_are_manual(self) -> None:
        # greybus eject_store(): a kill on the second interface leaves the
        # first marked ejected and disabled, and no exit in the loop does so
        v = self.verdict(self.LOOP % "intf->ejected = true;", "eject_store",
                         args="&intf->mutex")
        self.assertTrue(v.startswith("manual: intf->ejected is written in the loop around it"), v)

    def test_loop_with_an_error_exit_is_converted(self) -> None:
        # an existing exit in the loop already leaves earlier rounds done
        v = self.verdict(self.LOOP % "if (intf->busy) { mutex_unlock(&intf->mutex); "
                         "return -EBUSY; } intf->ejected = true;",
                         "eject_store", args="&intf->mutex")
        self.assertEqual(v, "converted")


    def test_other_cases_of_a_switch_caller_do_not_count(self) -> None:
        # tests/kernel/killdemo's kd_ioctl() (and cec_ioctl(), snd_ctl_ioctl()):
        # the code of the other cases runs on other paths, not before the call
        code = """
            static int foo_block(int __user *uarg)
            {
            	int ret = 0;

            	mutex_lock(&foo_mutex);
            	foo_passes++;
            	if (put_user(foo_passes, uarg))
            		ret = -EFAULT;
            	mutex_unlock(&foo_mutex);
            	return ret;
            }
            static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
            {
            	switch (cmd) {
            	case FOO_RELEASE:
            		complete_all(&foo_done);
            		foo_flag = true;
            		return 0;
            	case FOO_IOC(FOO_BLOCK):
            		return foo_block((int __user *)arg);
            	default:
            		return -ENOTTY;
            	}
            }
            static const struct file_operations foo_fops = {
            	.unlocked_ioctl = foo_ioctl,
            };
            """
        self.assertEqual(self.verdict(code, "foo_block", args="&foo_mutex"), "converted")


class TestErrorPath(VerdictCase):
    def test_sleep_under_unwind_label_is_manual(self) -> None:
        # ip6mr_rules_init(): rtnl_lock() under err2:
        v = self.verdict("""
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	struct foo *foo = f->private_data;
            	int err;

            	err = foo_start(foo);
            	if (err < 0)
            		goto err2;
            	return 0;
            err2:
            	mutex_lock(&foo->lock);
            	foo_undo(foo);
            	mutex_unlock(&foo->lock);
            	return err;
            }
            """, "foo_ioctl", args="&foo->lock")
        self.assertTrue(v.startswith("manual: on the error-unwind path after err2:"), v)

    def test_sleep_under_error_test_is_manual(self) -> None:
        v = self.verdict("""
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	struct foo *foo = f->private_data;
            	int ret = 0;

            	if (cmd)
            		ret = -EINVAL;
            	if (ret) {
            		mutex_lock(&foo->lock);
            		foo->errors++;
            		mutex_unlock(&foo->lock);
            	}
            	return ret;
            }
            """, "foo_ioctl", args="&foo->lock")
        self.assertTrue(v.startswith("manual: on an error path (under `if (ret)`)"), v)


class TestCrossFile(VerdictCase):
    """What the audit's graph says about callers outside the file."""
    CODE = """
        static int foo_write_reg(struct foo *foo, int reg, int val)
        {
        	if (reg < 0)
        		return -EINVAL;
        	mutex_lock(&foo->lock);
        	foo->regs[reg] = val;
        	mutex_unlock(&foo->lock);
        	return 0;
        }
        """

    def test_callers_in_other_files_make_it_manual(self) -> None:
        v = self.verdict(self.CODE, "foo_write_reg", args="&foo->lock",
                         reach="t.c\tfoo_write_reg\tioctl,xcallers:3:drivers/x/core.c:x_probe\n")
        self.assertEqual(v, "manual: foo_write_reg() has 3 caller(s) in other files "
                            "(x_probe() in drivers/x/core.c); their handling of the result is "
                            "not checked")

    def test_stored_in_non_root_member_makes_it_manual(self) -> None:
        # mmd_phy_indirect() ignores what mii_bus.write returns
        v = self.verdict(self.CODE, "foo_write_reg", args="&foo->lock",
                         reach="t.c\tfoo_write_reg\tioctl,stored:mii_bus.write\n")
        self.assertTrue(v.startswith("manual: foo_write_reg() is stored in mii_bus.write"), v)

    def test_guessed_pointer_chain_is_no_proof(self) -> None:
        v = self.verdict(self.CODE, "foo_write_reg", args="&foo->lock",
                         reach="t.c\tfoo_write_reg\tioctl,ptrhops:3\n")
        self.assertTrue(v.startswith("manual: a system call reaches foo_write_reg() only"), v)
        v = self.verdict(self.CODE, "foo_write_reg", args="&foo->lock",
                         reach="t.c\tfoo_write_reg\tioctl,ptrhops:2\n")
        self.assertEqual(v, "converted")


class TestUntypedRoot(VerdictCase):
    CODE = """
        static int mux_set(struct typec_mux_dev *mux, struct typec_mux_state *state)
        {
        	struct foo *foo = typec_mux_get_drvdata(mux);

        	if (!state)
        		return -EINVAL;
        	mutex_lock(&foo->lock);
        	foo->mode = state->mode;
        	mutex_unlock(&foo->lock);
        	return 0;
        }
        static int foo_probe(struct i2c_client *client)
        {
        	struct typec_mux_desc mux_desc = { };

        	mux_desc.set = mux_set;
        	return PTR_ERR_OR_ZERO(typec_mux_register(&client->dev, &mux_desc));
        }
        """

    def test_generic_member_without_type_is_no_root(self) -> None:
        # pi3usb30532_mux_set: typec_mux_desc.set is not kernel_param_ops.set
        v = self.verdict(self.CODE, "mux_set", args="&foo->lock")
        self.assertTrue(v.startswith("manual: mux_set() is a root only through a store to .set"),
                        v)

    def test_distinctive_member_without_type_is_a_root(self) -> None:
        code = self.CODE.replace("mux_desc.set = mux_set", "mux_desc.unlocked_ioctl = mux_set")
        v = self.verdict(code, "mux_set", args="&foo->lock")
        self.assertNotIn("root only through", v)


    def test_pointer_callers_elsewhere_are_no_root(self) -> None:
        # mdio_mux_read (drivers/net/mdio/mdio-mux.c): `cb->mii_bus->read =
        # mdio_mux_read` with the type unseen; the whole-tree graph reaches
        # it from system calls only through __mdiobus_read()'s `bus->read()`,
        # whose callers (bcm_phy_read_misc, phy_mii_ioctl) take the result
        # as register data.
        code = """
            static int mux_read(struct mii_bus *bus, int phy_id, int regnum)
            {
            	struct mux_child *cb = bus->priv;
            	int r;

            	mutex_lock_nested(&cb->parent->mdio_lock, 1);
            	r = cb->parent->read(cb->parent, phy_id, regnum);
            	mutex_unlock(&cb->parent->mdio_lock);
            	return r;
            }
            static int mux_init(struct mux_child *cb)
            {
            	cb->mii_bus->read = mux_read;
            	return 0;
            }
            """
        reach = ("t.c\tmux_read\talsa,block,ethtool,fops,ioctl,netlink,sysfs,root,"
                 "via:?.read\n")
        v = self.verdict(code, "mux_read", prim="mutex_lock_nested",
                         args="&cb->parent->mdio_lock, 1", reach=reach)
        self.assertTrue(v.startswith("manual: mux_read() is a root only through a store to .read"),
                        v)


    def test_untyped_store_in_another_file_is_no_root(self) -> None:
        # ax88796c_mdio_read (drivers/net/ethernet/asix/ax88796c_ioctl.c):
        # `ax_local->mdiobus->read = ax88796c_mdio_read` in ax88796c_main.c
        code = """
            int foo_mdio_read(struct mii_bus *bus, int phy_id, int loc)
            {
            	struct foo *foo = bus->priv;
            	int r;

            	mutex_lock(&foo->lock);
            	r = foo->regs[loc];
            	mutex_unlock(&foo->lock);
            	return r;
            }
            """
        reach = "t.c\tfoo_mdio_read\tfops,ioctl,syscall,root,via:?.read\n"
        v = self.verdict(code, "foo_mdio_read", args="&foo->lock", reach=reach)
        self.assertTrue(v.startswith("manual: foo_mdio_read() is a root only through a store "
                                     "to .read"), v)


class TestUncheckedMember(VerdictCase):
    def test_getgeo_is_manual(self) -> None:
        # virtblk_getgeo: ibm_partition() takes a failed getgeo as no label
        v = self.verdict("""
            static int foo_getgeo(struct block_device *bd, struct hd_geometry *geo)
            {
            	struct foo *foo = bd->bd_disk->private_data;

            	mutex_lock(&foo->lock);
            	geo->heads = foo->heads;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            static const struct block_device_operations foo_bdops = {
            	.getgeo = foo_getgeo,
            };
            """, "foo_getgeo", args="&foo->lock")
        self.assertTrue(v.startswith("manual: foo_getgeo() is block_device_operations.getgeo"), v)


    def test_flock_is_manual(self) -> None:
        # ocfs2_do_funlock: locks_remove_flock() calls ->flock(F_UNLCK) at
        # every close and ignores the result
        v = self.verdict("""
            static int foo_flock(struct file *file, int cmd, struct file_lock *fl)
            {
            	struct foo *foo = file->private_data;

            	if (fl->fl_type != F_UNLCK)
            		return -EINVAL;
            	mutex_lock(&foo->lock);
            	foo->locked = 0;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            static const struct file_operations foo_lock_fops = {
            	.flock = foo_flock,
            };
            """, "foo_flock", args="&foo->lock")
        self.assertTrue(v.startswith("manual: foo_flock() is file_operations.flock"), v)

    def test_flock_of_a_root_in_another_file_is_manual(self) -> None:
        # ocfs2_do_funlock (fs/ocfs2/locks.c) is called by ocfs2_flock(),
        # whose file_operations table is in fs/ocfs2/file.c: the root's
        # member is known only from the whole-tree reach line.
        code = """
            static int do_funlock(struct file *file, int cmd, struct file_lock *fl)
            {
            	struct foo *foo = file->private_data;

            	mutex_lock(&foo->lock);
            	foo->locked = 0;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            int foo_flock(struct file *file, int cmd, struct file_lock *fl)
            {
            	if (fl->fl_type == F_UNLCK)
            		return do_funlock(file, cmd, fl);
            	return -EINVAL;
            }
            """
        reach = ("t.c\tfoo_flock\tfops,syscall,root,via:file_operations.flock\n"
                 "t.c\tdo_funlock\tfops,syscall\n")
        v = self.verdict(code, "do_funlock", args="&foo->lock", reach=reach)
        self.assertTrue(v.startswith("manual: foo_flock() is file_operations.flock"), v)

    def test_get_link_ksettings_is_manual(self) -> None:
        # efx_ethtool_get_link_ksettings: br_if.c port_cost() and others
        # take a failure of __ethtool_get_link_ksettings() as "speed unknown"
        v = self.verdict("""
            static int foo_get_link_ksettings(struct net_device *dev,
            				  struct ethtool_link_ksettings *cmd)
            {
            	struct foo *foo = netdev_priv(dev);

            	mutex_lock(&foo->lock);
            	cmd->base.speed = foo->speed;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            static const struct ethtool_ops foo_ethtool_ops = {
            	.get_link_ksettings = foo_get_link_ksettings,
            };
            """, "foo_get_link_ksettings", args="&foo->lock")
        self.assertTrue(v.startswith(
            "manual: foo_get_link_ksettings() is ethtool_ops.get_link_ksettings"), v)

    NETDEV_MEMBER = """
        static int foo_{member}(struct net_device *dev, {arg})
        {{
        	struct foo_priv *priv = netdev_priv(dev);

        	mutex_lock(&priv->wx_mutex);
        	{body}
        	schedule_work(&priv->reset_wq);
        	mutex_unlock(&priv->wx_mutex);
        	return 0;
        }}
        static const struct net_device_ops foo_netdev_ops = {{
        	.ndo_{member} = foo_{member},
        }};
        """

    def test_set_mac_address_is_manual(self) -> None:
        # r8192_set_mac_adr: bonding and team restore a port's own MAC at
        # release through dev_set_mac_address() and ignore the result
        code = self.NETDEV_MEMBER.format(
            member="set_mac_address", arg="void *mac",
            body="eth_hw_addr_set(dev, ((struct sockaddr *)mac)->sa_data);")
        v = self.verdict(code, "foo_set_mac_address", args="&priv->wx_mutex")
        self.assertTrue(v.startswith(
            "manual: foo_set_mac_address() is net_device_ops.ndo_set_mac_address"), v)

    def test_tiocmset_is_manual(self) -> None:
        # uart_tiocmset: hci_uart_set_flow_control() and hci_ath call
        # tty->driver->ops->tiocmset() and only log or ignore the result
        v = self.verdict("""
            static int foo_tiocmset(struct tty_struct *tty, unsigned int set,
            			unsigned int clear)
            {
            	struct foo_state *state = tty->driver_data;
            	struct tty_port *port = &state->port;
            	int ret = -EIO;

            	mutex_lock(&port->mutex);
            	if (!tty_io_error(tty)) {
            		foo_update_mctrl(state, set, clear);
            		ret = 0;
            	}
            	mutex_unlock(&port->mutex);
            	return ret;
            }
            static const struct tty_operations foo_tty_ops = {
            	.tiocmset = foo_tiocmset,
            };
            """, "foo_tiocmset", args="&port->mutex")
        self.assertTrue(v.startswith("manual: foo_tiocmset() is tty_operations.tiocmset"), v)

    KCTL_GET = """
        static int foo_sw_get(struct snd_kcontrol *kcontrol,
        		      struct snd_ctl_elem_value *ucontrol)
        {
        	struct foo *chip = snd_kcontrol_chip(kcontrol);

        	mutex_lock(&chip->control_mutex);
        	ucontrol->value.integer.value[0] = chip->mute;
        	mutex_unlock(&chip->control_mutex);
        	return 0;
        }
        static const struct snd_kcontrol_new foo_sw = {
        	.get = foo_sw_get,
        };
        """

    def test_vmaster_follower_get_is_manual(self) -> None:
        # hda_gen_bind_mute_get: vmaster's follower_update() calls a
        # follower's .get and __snd_hda_add_vmaster() drops the failure
        code = self.KCTL_GET + """
            static int foo_build(struct foo *chip, struct snd_kcontrol *master)
            {
            	return snd_ctl_add_follower(master, snd_ctl_new1(&foo_sw, chip));
            }
            """
        v = self.verdict(code, "foo_sw_get", args="&chip->control_mutex")
        self.assertTrue(v.startswith("manual: foo_sw_get() is snd_kcontrol_new.get"), v)

    def test_kcontrol_get_without_vmaster_is_converted(self) -> None:
        v = self.verdict(self.KCTL_GET, "foo_sw_get", args="&chip->control_mutex")
        self.assertEqual(v, "converted")

    def test_set_phys_id_is_manual(self) -> None:
        # aq_ethtool_set_phys_id: ethtool_phys_id() restores the LED with
        # ETHTOOL_ID_INACTIVE after a signal, ignoring the result
        v = self.verdict("""
            static int foo_set_phys_id(struct net_device *ndev,
            			   enum ethtool_phys_id_state state)
            {
            	struct foo *foo = netdev_priv(ndev);
            	int err;

            	mutex_lock(&foo->fwreq_mutex);
            	err = foo_fw_led(foo, state == ETHTOOL_ID_ACTIVE);
            	mutex_unlock(&foo->fwreq_mutex);
            	return err;
            }
            static const struct ethtool_ops foo_ethtool_ops = {
            	.set_phys_id = foo_set_phys_id,
            };
            """, "foo_set_phys_id", args="&foo->fwreq_mutex")
        self.assertTrue(v.startswith("manual: foo_set_phys_id() is ethtool_ops.set_phys_id"), v)

    def test_change_mtu_is_manual(self) -> None:
        # the same release paths restore the port's MTU with dev_set_mtu()
        code = self.NETDEV_MEMBER.format(
            member="change_mtu", arg="int new_mtu", body="dev->mtu = new_mtu;")
        v = self.verdict(code, "foo_change_mtu", args="&priv->wx_mutex")
        self.assertTrue(v.startswith(
            "manual: foo_change_mtu() is net_device_ops.ndo_change_mtu"), v)


class TestSeqStart(VerdictCase):
    def test_seq_attribute_start_with_unconditional_stop_is_manual(self) -> None:
        # qat_dev_cfg_start(): the root is DEFINE_SEQ_ATTRIBUTE(qat_dev_cfg);
        # seq_read() calls ->stop, which unlocks, after a failed ->start.
        code = """
            static DEFINE_MUTEX(cfg_read_lock);
            static void *cfg_start(struct seq_file *sfile, loff_t *pos)
            {
            	struct foo *foo = sfile->private;

            	mutex_lock(&cfg_read_lock);
            	return seq_list_start(&foo->list, *pos);
            }
            static void *cfg_next(struct seq_file *sfile, void *v, loff_t *pos)
            {
            	struct foo *foo = sfile->private;

            	return seq_list_next(v, &foo->list, pos);
            }
            static void cfg_stop(struct seq_file *sfile, void *v)
            {
            	mutex_unlock(&cfg_read_lock);
            }
            static int cfg_show(struct seq_file *sfile, void *v)
            {
            	return 0;
            }
            static const struct seq_operations cfg_sops = {
            	.start = cfg_start,
            	.next = cfg_next,
            	.stop = cfg_stop,
            	.show = cfg_show,
            };
            DEFINE_SEQ_ATTRIBUTE(cfg);
            """
        v = self.verdict(code, "cfg_start", args="&cfg_read_lock")
        self.assertTrue(v.startswith("manual: ->stop cfg_stop() calls mutex_unlock()"), v)


class TestRootCalledDirectly(VerdictCase):
    CODE = """
        struct chip { struct mutex lock; int value[8]; struct gpio_chip gc; };
        static int __mock_get(struct chip *chip, unsigned int offset)
        {
        	if (offset >= 8)
        		return -EINVAL;
        	return chip->value[offset];
        }
        static int mock_get(struct gpio_chip *gc, unsigned int offset)
        {
        	struct chip *chip = gpiochip_get_data(gc);
        	int val;

        	mutex_lock(&chip->lock);
        	val = __mock_get(chip, offset);
        	mutex_unlock(&chip->lock);
        	return val;
        }
        static ssize_t mock_debugfs_read(struct file *file, char __user *ubuf,
        				 size_t size, loff_t *ppos)
        {
        	struct chip *chip = file->private_data;
        	char buf[3];
        	int val, cnt;

        	val = mock_get(&chip->gc, 0);
        	cnt = snprintf(buf, sizeof(buf), "%d\\n", val);
        	return simple_read_from_buffer(ubuf, size, ppos, buf, cnt);
        }
        """

    def test_root_whose_file_prints_its_result_is_manual(self) -> None:
        # gpio_mockup_get: gpio_chip.get (a root through gpiolib), and
        # gpio_mockup_debugfs_read() prints what it returns
        v = self.verdict(self.CODE, "mock_get", args="&chip->lock",
                         reach="t.c\tmock_get\tsysfs,syscall,root\n"
                               "t.c\tmock_debugfs_read\tdebugfs,syscall,root\n")
        self.assertTrue(v.startswith("manual: mock_debugfs_read() calls the root mock_get() "
                                     "directly and does not check its result"), v)

    def test_value_from_a_static_helper_is_no_errno(self) -> None:
        # gpio_mockup_get returns what __gpio_mockup_get reads: a line value
        code = self.CODE.replace("        \tif (offset >= 8)\n        \t\treturn -EINVAL;\n", "")
        v = self.verdict(code, "mock_get", args="&chip->lock",
                         reach="t.c\tmock_get\tsysfs,syscall\n")
        self.assertTrue(v.startswith("manual: mock_get() never returns a negative errno"), v)

    def test_a_root_in_another_files_table_is_exempt_from_the_value_check(self) -> None:
        # upd78f0730_tiocmget (drivers/usb/serial/upd78f0730.c:183) returns
        # modem bits, and its caller, the system call, tests `>= 0`: a
        # root's caller takes errors, wherever its ops table is.
        code = self.CODE.replace("        \tif (offset >= 8)\n        \t\treturn -EINVAL;\n", "")
        v = self.verdict(code, "mock_get", args="&chip->lock",
                         reach="t.c\tmock_get\tsysfs,syscall,root\n")
        self.assertNotIn("never returns a negative errno", v)

    def test_a_result_from_an_operation_may_be_an_errno(self) -> None:
        # tsys01_read_temperature (drivers/iio/temperature/tsys01.c:54):
        # `ret = dev_data->convert_and_read(...); ... return ret;`
        v = self.verdict("""
            static int t_read(struct t_dev *d, int *val)
            {
            	int ret;

            	mutex_lock(&d->lock);
            	ret = d->convert_and_read(d->client, val);
            	mutex_unlock(&d->lock);
            	if (ret)
            		return ret;
            	*val >>= 8;
            	return 0;
            }
            static ssize_t t_show(struct device *dev, struct device_attribute *a, char *buf)
            {
            	struct t_dev *d = dev_get_drvdata(dev);
            	int val, ret;

            	ret = t_read(d, &val);
            	if (ret)
            		return ret;
            	return sprintf(buf, "%d\\n", val);
            }
            """, "t_read", args="&d->lock", reach="t.c\tt_show\tsysfs,syscall,root\n"
                                                  "t.c\tt_read\tsysfs,syscall\n")
        self.assertEqual(v, "converted")

    def test_root_whose_file_returns_its_result_is_converted(self) -> None:
        code = self.CODE.replace("val = mock_get(&chip->gc, 0);",
                                 "val = mock_get(&chip->gc, 0);\n        \tif (val < 0)\n"
                                 "        \t\treturn val;")
        v = self.verdict(code, "mock_get", args="&chip->lock",
                         reach="t.c\tmock_get\tsysfs,syscall,root\n"
                               "t.c\tmock_debugfs_read\tdebugfs,syscall,root\n")
        self.assertNotIn("calls the root", v)


    def test_member_of_a_root_in_another_file(self) -> None:
        # efx_ethtool_get_link_ksettings: the ops table is in ethtool.c, the
        # function in ethtool_common.c; the graph says how it is a root
        v = self.verdict("""
            int efx_get_link_ksettings(struct net_device *dev,
            			   struct ethtool_link_ksettings *cmd)
            {
            	struct foo *foo = netdev_priv(dev);

            	mutex_lock(&foo->lock);
            	cmd->base.speed = foo->speed;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            """, "efx_get_link_ksettings", args="&foo->lock",
            reach="t.c\tefx_get_link_ksettings\tethtool,syscall,root,"
                  "via:ethtool_ops.get_link_ksettings\n")
        self.assertTrue(v.startswith("manual: efx_get_link_ksettings() is "
                                     "ethtool_ops.get_link_ksettings"), v)

    def test_tty_open_is_manual(self) -> None:
        # gs_open: tty_open() calls ->close after a failed ->open, and
        # gs_close() locked a NULL port (found by make check-boot-fi)
        v = self.verdict("""
            static int foo_tty_open(struct tty_struct *tty, struct file *file)
            {
            	struct foo *foo = foo_ports[tty->index];

            	mutex_lock(&foo->lock);
            	tty->driver_data = foo;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            static const struct tty_operations foo_tty_ops = {
            	.open = foo_tty_open,
            };
            """, "foo_tty_open", args="&foo->lock")
        self.assertTrue(v.startswith("manual: foo_tty_open() is tty_operations.open"), v)


class TestTestedCaller(VerdictCase):
    """A caller that tests the result in an `if`: the test must see the
    error and its branch must end the request with one."""

    FIND = """
        static struct chan *chan_find(unsigned short channel)
        {
        	struct chan *c;

        	mutex_lock(&chan_lock);
        	c = __chan_find(channel);
        	mutex_unlock(&chan_lock);
        	return c;
        }
        static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
        {
        	if (TEST)
        		return -EINVAL;
        	return 0;
        }
        """

    def test_pointer_truth_test_is_no_check(self) -> None:
        # hci_mgmt_chan_find (net/bluetooth/hci_sock.c): hci_sock_bind()'s
        # `if (!hci_mgmt_chan_find(...))` takes an ERR_PTR for a channel found
        v = self.verdict(self.FIND.replace("TEST", "!chan_find(arg)"), "chan_find",
                         args="&chan_lock")
        self.assertEqual(v, "manual: pointer return; a caller does not test IS_ERR")

    def test_pointer_is_err_test_is_a_check(self) -> None:
        v = self.verdict(self.FIND.replace("TEST", "IS_ERR_OR_NULL(chan_find(arg))"),
                         "chan_find", args="&chan_lock")
        self.assertEqual(v, "converted")

    UPDATE = """
        static struct foo *update_device(struct foo *foo)
        {
        	struct foo *ret = foo;

        	mutex_lock(&foo->lock);
        	foo->val = read_reg(foo);
        	if (foo->val < 0)
        		ret = ERR_PTR(foo->val);
        	mutex_unlock(&foo->lock);
        	return ret;
        }
        static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
        {
        	struct foo *data = update_device(file->private_data);
        	int index = (int)arg;
        	int nr = index >> 8;
        	int val;

        	USE
        	val = data->val + nr;
        	return val;
        }
        """

    def test_pointer_tested_below_declarations_is_a_check(self) -> None:
        # adc128_in_show (drivers/hwmon/adc128d818.c) declares three locals
        # between adc128_update_device() and its IS_ERR test
        v = self.verdict(self.UPDATE.replace(
            "USE", "if (IS_ERR(data))\n        \t\treturn PTR_ERR(data);"),
            "update_device", args="&foo->lock")
        self.assertEqual(v, "converted")

    def test_pointer_used_before_its_test_is_no_check(self) -> None:
        v = self.verdict(self.UPDATE.replace(
            "USE", "nr += data->val;\n        \tif (IS_ERR(data))\n        \t\treturn PTR_ERR(data);"),
            "update_device", args="&foo->lock")
        self.assertEqual(v, "manual: pointer return; a caller does not test IS_ERR")

    def test_test_in_void_caller_loses_the_error(self) -> None:
        # bnx2i_init_one (drivers/scsi/bnx2i/bnx2i_init.c): bnx2i_ulp_init()
        # frees the adapter, logs and returns void
        v = self.verdict("""
            static int init_one(struct foo *foo)
            {
            	int rc = 0;

            	mutex_lock(&foo->lock);
            	if (!foo->max)
            		rc = -EOPNOTSUPP;
            	else
            		foo->up = 1;
            	mutex_unlock(&foo->lock);
            	return rc;
            }
            static void ulp_init(struct foo *foo)
            {
            	if (init_one(foo)) {
            		pr_err("init failed");
            		kfree(foo);
            	}
            }
            static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
            {
            	ulp_init(file->private_data);
            	return 0;
            }
            """, "init_one", args="&foo->lock")
        self.assertTrue(v.startswith("manual: ulp_init() tests the result of init_one() but does "
                                     "not end with an error"), v)

    def test_test_that_returns_an_error_passes_it_on(self) -> None:
        # open_dice_wipe (drivers/misc/open-dice.c): `if (wipe()) return -EIO;`
        v = self.verdict("""
            static int wipe(struct foo *foo)
            {
            	mutex_lock(&foo->lock);
            	foo->data = 0;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
            {
            	if (wipe(file->private_data))
            		return -EIO;
            	return 0;
            }
            """, "wipe", args="&foo->lock")
        self.assertEqual(v, "converted")


class TestOtherChecks(VerdictCase):
    def test_release_is_refused(self) -> None:
        v = self.verdict("""
            static int foo_release(struct inode *i, struct file *f)
            {
            	struct foo *foo = f->private_data;

            	mutex_lock(&foo->lock);
            	foo->open = 0;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            """, "foo_release", args="&foo->lock")
        self.assertTrue(v.startswith("refused: reachable from must-not-fail root"), v)

    # A void helper that takes the lock for its caller.
    RESET = textwrap.dedent("""
        void foo_reset(struct foo *foo)
        {
        	mutex_lock(&foo->lock);
        	foo->n = 0;
        	mutex_unlock(&foo->lock);
        }
        """)

    def test_static_void_becomes_int(self) -> None:
        v = self.verdict("static " + self.RESET + """
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	foo_reset(f->private_data);
            	return 0;
            }
            """, "foo_reset", args="&foo->lock")
        self.assertEqual(v, "converted")

    def test_void_chain_stops_at_a_void_caller_stored_in_a_member(self) -> None:
        v = self.verdict("static " + self.RESET + """
            static void foo_kick(struct foo *foo)
            {
            	foo_reset(foo);
            }
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	foo_kick(f->private_data);
            	return 0;
            }
            static const struct foo_ops foo_ops = { .kick = foo_kick };
            """, "foo_reset", args="&foo->lock")
        self.assertIn("foo_kick() ignores the result of foo_reset() and returns void: "
                      "the address of foo_kick() is taken", v)

    def test_global_void_is_manual(self) -> None:
        v = self.verdict(self.RESET + """
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	foo_reset(f->private_data);
            	return 0;
            }
            """, "foo_reset", args="&foo->lock")
        self.assertTrue(v.startswith("manual: void function cannot carry an error; "
                                     "foo_reset() is not static"), v)

    def test_on_stack_completion_is_refused(self) -> None:
        v = self.verdict("""
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	DECLARE_COMPLETION_ONSTACK(done);

            	foo_submit(f->private_data, &done);
            	wait_for_completion(&done);
            	return 0;
            }
            """, "foo_ioctl", prim="wait_for_completion", args="&done")
        self.assertTrue(v.startswith("refused: on-stack done"), v)


class TestBody(unittest.TestCase):
    TEXT = textwrap.dedent("""\
        int f(struct x *d)
        {
        	int ret;

        	if (!d)
        		return -EINVAL;
        	ret = take(d);
        	if (ret)
        		goto out;
        	while (busy(d))
        		schedule_timeout_uninterruptible(1);
        	mutex_lock(&d->lock);
        out:
        	put(d);
        	return ret;
        }
        """)

    def test_nearest_exit_is_the_goto(self) -> None:
        e = body.nearest_exit(self.TEXT, self.TEXT.index("mutex_lock"))
        self.assertEqual(e.label, "out")

    def test_label_code_runs_to_the_return(self) -> None:
        self.assertEqual(body.label_code(self.TEXT, "out").split(), ["put(d);", "return", "ret;"])

    def test_loop_header_of_a_braceless_poll(self) -> None:
        off = self.TEXT.index("schedule_timeout")
        self.assertEqual(body.loop_header(self.TEXT, off), self.TEXT.index("while"))
        self.assertEqual(body.loop_header(self.TEXT, self.TEXT.index("mutex_lock")), -1)

    def test_exit_guard_that_takes_something_is_in_the_window(self) -> None:
        # nbd_genl_reconfigure(): the reference is held after the exit.
        text = ("int f(struct n *nbd)\n{\n\tif (!refcount_inc_not_zero(&nbd->refs)) {\n"
                "\t\tnbd_put(nbd);\n\t\treturn -EINVAL;\n\t}\n\tmutex_lock(&nbd->l);\n}\n")
        e = body.nearest_exit(text, text.index("mutex_lock"))
        self.assertEqual(e.offset, text.index("if ("))

    def test_call_tested_by_the_exit_guard_is_in_the_window(self) -> None:
        # `ret = mnt_want_write_file(f); if (ret) return ret;` holds the write
        # access after the exit.
        text = ("int f(struct file *f)\n{\n\tint ret;\n\n\tret = mnt_want_write_file(f);\n"
                "\tif (ret)\n\t\treturn ret;\n\tmutex_lock(&l);\n}\n")
        e = body.nearest_exit(text, text.index("mutex_lock"))
        self.assertEqual(text[e.offset:].lstrip().split("(")[0], "ret = mnt_want_write_file")

    def test_case_label_before_the_tested_call(self) -> None:
        # amdgpu_bo_list_ioctl: `case UPDATE: r = create(&list); if (r) goto
        # error_free;` - list is held past the exit; error_free does not put it.
        text = ("int f(void)\n{\n\tswitch (x) {\n\tcase 1:\n\t\tbreak;\n\tcase 2:\n"
                "\t\tr = take(&l);\n\t\tif (r)\n\t\t\tgoto err;\n\t\tmutex_lock(&m);\n"
                "\t}\n}\n")
        self.assertEqual(body.nearest_exit(text, text.index("mutex_lock")).tested, "take")

    def test_declaration_tested_by_the_exit_guard(self) -> None:
        # saa7134 video_open: `int ret = v4l2_fh_open(file); if (ret < 0) return ret;`
        text = ("int f(struct file *file)\n{\n\tint ret = v4l2_fh_open(file);\n\n"
                "\tif (ret < 0)\n\t\treturn ret;\n\tmutex_lock(&m);\n}\n")
        self.assertEqual(body.nearest_exit(text, text.index("mutex_lock")).tested,
                         "v4l2_fh_open")

    def test_success_return_is_not_an_error_exit(self) -> None:
        # param_set_xint(): `if (ret || prev == power_save) return ret;`
        text = ("int f(void)\n{\n\tint ret = set(v);\n\tif (ret || prev == cur)\n"
                "\t\treturn ret;\n\tmutex_lock(&l);\n}\n")
        self.assertIsNone(body.nearest_exit(text, text.index("mutex_lock")))
        text = text.replace("ret || prev == cur", "ret")
        self.assertIsNotNone(body.nearest_exit(text, text.index("mutex_lock")))

    def test_stores_skip_locals_and_declarations(self) -> None:
        self.assertEqual(body.stores_in("struct foo *p = x; n = 1; p->a = 2; *q = 3; a[i] = 4;"),
                         ["p->a", "*q", "a[i]"])


if __name__ == "__main__":
    unittest.main()


class TestReturningCases(unittest.TestCase):
    """body.without_returning_cases(): blkdev_ioctl()'s cases that return
    never run before the call after the switch."""
    TEXT = textwrap.dedent("""\
        long f(struct d *d, unsigned int cmd)
        {
        	switch (cmd) {
        	case A:
        		return set_a(d);
        	case B:
        	case C:
        		if (!d->b)
        			return -EINVAL;
        		return set_b(d);
        	case D:
        		prep_d(d);
        	case E:
        		return set_e(d);
        	case F:
        		set_f(d);
        		break;
        	case G:
        		set_g(d);
        		goto out;
        	case H:
        		set_h(d);
        		goto again;
        	default:
        		break;
        	}
        again:
        	common(d);
        out:
        	return 0;
        }
        """)

    def kept(self) -> str:
        return body.without_returning_cases(self.TEXT, self.TEXT.index("common("))

    def test_returning_cases_are_blanked(self) -> None:
        kept = self.kept()
        for name in ("set_a", "set_b", "d->b", "set_e", "set_g"):
            self.assertNotIn(name, kept)

    def test_fall_through_into_a_return_is_blanked(self) -> None:
        self.assertNotIn("prep_d", self.kept())

    def test_break_and_goto_back_are_kept(self) -> None:
        kept = self.kept()
        self.assertIn("set_f", kept)
        self.assertIn("set_h", kept)

    def test_offsets_stay(self) -> None:
        self.assertEqual(len(self.kept()), len(self.TEXT))

    def test_switch_around_the_offset_is_left(self) -> None:
        off = self.TEXT.index("set_f")
        self.assertEqual(body.without_returning_cases(self.TEXT, off), self.TEXT)


class TestReturnTypeWords(unittest.TestCase):
    """Attributes before a function's name are not its return type: an
    `int __xipram` (cfi_cmdset_0002.c) or `noinline_for_stack int` helper
    returns an int."""

    def test_attributes_are_not_the_type(self) -> None:
        from killable.scan import csource
        ff = csource.scan_text(textwrap.dedent("""\
            static int __xipram do_write(struct map_info *map)
            {
            	return -EIO;
            }
            static noinline_for_stack int read_status(struct dev *d)
            {
            	return -EIO;
            }
            STATIC int unpack(void)
            {
            	return -1;
            }
            """), "t.c")
        self.assertEqual(ff.functions["do_write"].return_type, "int")
        self.assertEqual(ff.functions["read_status"].return_type, "int")
        self.assertEqual(ff.functions["unpack"].return_type, "int")


class TestTreeReach(unittest.TestCase):
    """A caller walk that leaves the files of its chunk reads the next
    file's reach lines from the whole tree's (reach.write_indexed), instead
    of taking what it was not given for "callers not checked"."""

    @classmethod
    def rules_with_defs(cls, d: str, defs: str) -> rules.Rules:
        """rules_with_tree() of an empty tree in d whose global functions'
        definitions are defs (name<TAB>files lines)."""
        from killable.graph import reach
        tree = os.path.join(d, "tree.tsv")
        reach.write_indexed(tree, {})
        with open(tree + reach.DEFS_SUFFIX, "w", encoding="utf-8") as f:
            f.write(defs)
        return cls.rules_with_tree(tree)

    @staticmethod
    def rules_with_tree(tree: str) -> rules.Rules:
        """A Rules that reads the whole tree's reach lines (and the defs
        beside them) from tree, as the audit's spatch processes do."""
        from killable.graph import reach
        old = os.environ.get(reach.TREE_REACH_ENV)
        os.environ[reach.TREE_REACH_ENV] = tree
        try:
            return rules.Rules()
        finally:
            if old is None:
                del os.environ[reach.TREE_REACH_ENV]
            else:
                os.environ[reach.TREE_REACH_ENV] = old

    def test_lines_of_another_file_are_read_when_asked(self) -> None:
        from killable.graph import reach
        with tempfile.TemporaryDirectory() as d:
            tree = os.path.join(d, "tree.tsv")
            reach.write_indexed(tree, {
                "a.c": "a.c\tfoo\tioctl\n",
                "b.c": "b.c\tbar\tsysfs,gcallers:1,gcall:a.c:3\n"})
            chunk = os.path.join(d, "chunk.tsv")
            with open(chunk, "w", encoding="utf-8") as f:
                f.write("a.c\tfoo\tioctl\n")
            k = self.rules_with_tree(tree)
            k.load_external(chunk)
            self.assertNotIn("bar", k.external)
            self.assertEqual(k.external_classes("b.c", "bar"),
                             {"sysfs", "gcallers:1", "gcall:a.c:3"})
            self.assertEqual(k.external_classes("a.c", "foo"), {"ioctl"})
            self.assertEqual(k.external_classes("c.c", "baz"), set())

    def test_global_functions_of_other_files_are_summarized(self) -> None:
        # dev_to_shost() in drivers/scsi/hosts.c only walks up the parents;
        # scsi_host_bump() there counts in a file-scope variable.
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "hosts.c"), "w", encoding="utf-8") as f:
                f.write(textwrap.dedent("""\
                    struct Scsi_Host *dev_to_shost(struct device *dev)
                    {
                    	while (!scsi_is_host_device(dev)) {
                    		if (!dev->parent)
                    			return NULL;
                    		dev = dev->parent;
                    	}
                    	return container_of(dev, struct Scsi_Host, shost_gendev);
                    }
                    static bool scsi_is_host_device(const struct device *dev)
                    {
                    	return dev->type == &scsi_host_type;
                    }
                    static int scsi_hosts;
                    void scsi_host_bump(struct Scsi_Host *shost)
                    {
                    	scsi_hosts++;
                    }
                    """))
            with open(os.path.join(d, "user.c"), "w", encoding="utf-8") as f:
                f.write("int f(struct device *d) { return dev_to_shost(d) != NULL; }\n")
            k = self.rules_with_defs(d, f"dev_to_shost\t{d}/hosts.c\nscsi_host_bump\t{d}/hosts.c\n"
                                        f"arch_thing\t{d}/a.c,{d}/b.c,{d}/c.c,{d}/d.c\n")
            ff = k.file_facts(os.path.join(d, "user.c"))
            self.assertEqual(k.param_writes(ff, "dev_to_shost"), frozenset())
            self.assertIsNone(k.param_writes(ff, "scsi_host_bump"))
            self.assertIsNone(k.param_writes(ff, "arch_thing"))
            self.assertIsNone(k.param_writes(ff, "unknown_elsewhere"))

    def test_a_getter_by_name_that_only_reads_takes_nothing(self) -> None:
        # dfl_get_feature_ioaddr_by_id() (drivers/fpga/dfl.c) looks a
        # feature up and returns its ioaddr: `_get_` names it an
        # acquisition, its body says it takes nothing.  dfl_get_dev() there
        # takes a reference; dfl_get_stub() has an #ifdef twin in its file.
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "dfl.c"), "w", encoding="utf-8") as f:
                f.write(textwrap.dedent("""\
                    void __iomem *dfl_get_feature_ioaddr_by_id(struct device *dev, u16 id)
                    {
                    	struct dfl_feature_platform_data *pdata = dev_get_platdata(dev);
                    	struct dfl_feature *feature;

                    	list_for_each_entry(feature, &pdata->features, node)
                    		if (feature->id == id)
                    			return feature->ioaddr;
                    	return NULL;
                    }
                    struct device *dfl_get_dev(struct device *dev)
                    {
                    	get_device(dev);
                    	return dev;
                    }
                    #ifdef CONFIG_DFL_X
                    int dfl_get_stub(struct device *dev)
                    {
                    	return dfl_x_take(dev);
                    }
                    #else
                    int dfl_get_stub(struct device *dev)
                    {
                    	return 0;
                    }
                    #endif
                    """))
            k = self.rules_with_defs(d, f"dfl_get_feature_ioaddr_by_id\t{d}/dfl.c\n"
                                        f"dfl_get_dev\t{d}/dfl.c\ndfl_get_stub\t{d}/dfl.c\n")
            self.assertFalse(k.is_acquire("dfl_get_feature_ioaddr_by_id"))
            self.assertTrue(k.is_acquire("dfl_get_dev"))
            self.assertTrue(k.is_acquire("dfl_get_stub"))
            self.assertTrue(k.is_acquire("pm_runtime_get_sync"))   # in the table


class TestSignalContexts(VerdictCase):
    """Kernel threads, work items and timers never have a fatal signal
    pending (cocci/data/contexts.tsv): they are no must-not-fail roots, and
    a caller that runs only there may drop the new error."""

    HELPER = """
        static int refresh(struct dev *d)
        {
        	mutex_lock(&d->lock);
        	d->gen++;
        	mutex_unlock(&d->lock);
        	return 0;
        }
        """
    IOCTL = """
        static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
        {
        	return refresh(f->private_data);
        }
        """

    def test_work_item_caller_may_drop_the_result(self) -> None:
        # A static work function, registered with INIT_WORK, drops it.
        v = self.verdict(self.HELPER + """
            static void refresh_work(struct work_struct *w)
            {
            	struct dev *d = container_of(w, struct dev, work);

            	refresh(d);
            }
            static int foo_setup(struct dev *d)
            {
            	INIT_WORK(&d->work, refresh_work);
            	return 0;
            }
            """ + self.IOCTL, "refresh")
        self.assertEqual(v, "converted")

    def test_release_caller_still_refuses(self) -> None:
        v = self.verdict(self.HELPER + """
            static int foo_release(struct inode *i, struct file *f)
            {
            	refresh(f->private_data);
            	return 0;
            }
            """ + self.IOCTL, "refresh")
        self.assertTrue(v.startswith("refused: also reachable from must-not-fail root release"),
                        v)

    def test_kthread_that_allows_sigkill_refuses(self) -> None:
        # md_thread, jffs2_garbage_collect_thread: allow_signal(SIGKILL).
        v = self.verdict(self.HELPER + """
            static int gc_thread(void *data)
            {
            	allow_signal(SIGKILL);
            	while (!kthread_should_stop())
            		refresh(data);
            	return 0;
            }
            static int foo_setup(struct dev *d)
            {
            	kthread_run(gc_thread, d, "gc");
            	return 0;
            }
            """ + self.IOCTL, "refresh")
        self.assertTrue("must-not-fail root kthread+signals" in v, v)

    def test_plain_helper_of_a_kthread_must_check(self) -> None:
        # The caller is a helper the kthread calls, not the kthread itself:
        # in one file's view its callers are not all known, so it must
        # check or pass the error on like any caller.
        v = self.verdict(self.HELPER + """
            void poll_once(struct dev *d)
            {
            	refresh(d);
            }
            static int poll_thread(void *data)
            {
            	while (!kthread_should_stop())
            		poll_once(data);
            	return 0;
            }
            static int foo_setup(struct dev *d)
            {
            	kthread_run(poll_thread, d, "poll");
            	return 0;
            }
            """ + self.IOCTL, "refresh")
        self.assertTrue(v.startswith("manual:"), v)

    def test_graph_says_caller_runs_only_in_a_work_item(self) -> None:
        # The same non-static helper, when the whole-tree graph says only
        # a work item reaches it.
        v = self.verdict(self.HELPER + """
            void poll_once(struct dev *d)
            {
            	refresh(d);
            }
            """ + self.IOCTL, "refresh",
                         reach="t.c\tpoll_once\tmnf:work\nt.c\trefresh\tioctl,mnf:work\n")
        self.assertEqual(v, "converted")


class TestContextsTable(unittest.TestCase):
    def test_table(self) -> None:
        from killable import data
        ctx = data.load_contexts()
        for kind in ("work", "kthread", "timer", "rcu", "tasklet", "irq"):
            self.assertFalse(ctx.can_be_killed(kind), kind)
        for kind in ("release", "flush", "remove", "module_exit", "kthread+signals",
                     "a kind nobody wrote down"):
            self.assertTrue(ctx.can_be_killed(kind), kind)
        self.assertIn("allow_signal", ctx.accepting)

    def test_malformed_line_names_itself(self) -> None:
        from killable import data
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
            f.write("context\twork\tmaybe\twhy\n")
        self.addCleanup(os.unlink, f.name)
        with self.assertRaisesRegex(ValueError, r":1: want context"):
            data.load_contexts(f.name)


class TestOwnCase(VerdictCase):
    """In the sleeping function itself, only its own `case` of a switch
    runs before the sleep (the caller walk knew this since 77d8adf)."""

    def ioctl(self, case_a: str, before: str = "") -> str:
        return self.verdict("""
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	struct foo *foo = f->private_data;
            	long ret = 0;
            """ + before + """
            	switch (cmd) {
            	case FOO_KICK:
            		queue_work(system_wq, &foo->work);
            """ + case_a + """
            	case FOO_READ:
            		mutex_lock(&foo->lock);
            		ret = foo->value;
            		mutex_unlock(&foo->lock);
            		break;
            	default:
            		ret = -ENOTTY;
            	}
            	return ret;
            }
            """, "foo_ioctl")

    def test_other_case_that_breaks_is_not_before(self) -> None:
        self.assertEqual(self.ioctl("\t\tbreak;\n"), "converted")

    def test_other_case_that_returns(self) -> None:
        self.assertEqual(self.ioctl("\t\treturn 0;\n"), "converted")

    def test_block_that_may_fall_through(self) -> None:
        # `{ ...; return 0; }` after a statement is an if's block, say: the
        # case may still fall through.
        v = self.ioctl("\t\tif (arg) { return 0; }\n")
        self.assertTrue(v.startswith("manual: queue_work() is called"), v)

    def test_fall_through_is_before(self) -> None:
        v = self.ioctl("\t\tfallthrough;\n")
        self.assertTrue(v.startswith("manual: queue_work() is called"), v)

    def test_code_before_the_switch_still_counts(self) -> None:
        v = self.ioctl("\t\tbreak;\n", before="\tfoo->busy = 1;\n")
        self.assertTrue(v.startswith("manual: foo->busy is written"), v)


class TestLocalWrites(VerdictCase):
    """A call that writes only into the function's own object is nothing a
    failure path must undo (local-writers.tsv)."""

    def store(self, before: str) -> str:
        return self.verdict("""
            static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	struct foo *foo = f->private_data;
            	struct foo_cmd cmd_buf;
            	DECLARE_WAITQUEUE(wait, current);

            """ + before + """
            	mutex_lock(&foo->lock);
            	foo->last = cmd_buf.op;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            """, "foo_ioctl")

    def test_memset_of_a_local_struct(self) -> None:
        self.assertEqual(self.store("\tmemset(&cmd_buf, 0, sizeof(cmd_buf));\n"), "converted")

    def test_memset_of_shared_memory_is_a_store(self) -> None:
        v = self.store("\tmemset(foo->buf, 0, sizeof(foo->buf));\n")
        self.assertTrue(v.startswith("manual: memset() is called"), v)


class TestRootCalledOutside(VerdictCase):
    def test_root_other_files_call_directly(self) -> None:
        # ubifs_getattr is inode_operations.getattr, and ubifs_symlink_getattr()
        # in another file calls it and drops the result.
        code = """
            int foo_getattr(struct inode *inode)
            {
            	struct foo *foo = inode->i_private;

            	mutex_lock(&foo->lock);
            	foo->seen++;
            	mutex_unlock(&foo->lock);
            	return 0;
            }
            """
        alone = self.verdict(code, "foo_getattr",
                             reach="t.c\tfoo_getattr\tvfs,root,via:inode_operations.getattr\n")
        self.assertEqual(alone, "converted")
        v = self.verdict(code, "foo_getattr",
                         reach="t.c\tfoo_getattr\tvfs,root,via:inode_operations.getattr,"
                               "xcallers:1:fs/foo/file.c:foo_symlink_getattr\n")
        self.assertTrue(v.startswith("manual: the root foo_getattr() is also called directly"), v)


class TestMemberCallers(VerdictCase):
    """A static function whose address is only stored in a member: its
    callers are the member's call sites the audit's graph found, each read
    in its own file (drivers/iio/accel/adxl313_core.c's read_raw, called by
    iio_read_channel_info() in industrialio-core.c)."""
    DRIVER = """
        static int foo_read_raw(struct iio_dev *indio_dev, struct iio_chan_spec const *chan,
        			int *val, int *val2, long mask)
        {
        	struct foo *data = iio_priv(indio_dev);
        	int ret;

        	mutex_lock(&data->lock);
        	ret = regmap_read(data->regmap, chan->address, val);
        	mutex_unlock(&data->lock);
        	if (ret)
        		return ret;
        	return IIO_VAL_INT;
        }
        static const struct iio_info foo_info = {
        	.read_raw = foo_read_raw,
        };
        """
    CORE_CHECKS = """
        static ssize_t iio_read_channel_info(struct iio_dev *indio_dev,
        				     struct iio_dev_attr *this_attr, char *buf)
        {
        	int vals[2];
        	int ret;

        	ret = indio_dev->info->read_raw(indio_dev, this_attr->c, &vals[0], &vals[1],
        					this_attr->address);
        	if (ret < 0)
        		return ret;
        	return iio_format_value(buf, ret, 2, vals);
        }
        """
    CORE_DROPS = """
        static void iio_poll_value(struct iio_dev *indio_dev, struct iio_chan_spec const *c)
        {
        	int val, val2;

        	indio_dev->info->read_raw(indio_dev, c, &val, &val2, 0);
        }
        """

    def judge_with(self, core: str, classes: str, core_reach: str,
                   driver: str = "") -> str:
        cpath = os.path.join(self.tmp.name, "core.c")
        with open(cpath, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(core))
        func = "iio_read_channel_info" if "iio_read_channel_info" in core else "iio_poll_value"
        reach = (f"t.c\tfoo_read_raw\tsysfs,stored:iio_info.read_raw,{classes}"
                 f"mcaller:{cpath}:{func}:read_raw\n"
                 f"core.c\t{func}\t{core_reach}\n")
        return self.verdict(driver or self.DRIVER, "foo_read_raw", args="&data->lock",
                            reach=reach)

    def test_checked_by_a_root_converts(self) -> None:
        v = self.judge_with(self.CORE_CHECKS, "mcallers:1,",
                            "sysfs,root,via:device_attribute.show")
        self.assertEqual(v, "converted")

    def test_a_call_site_that_drops_the_result(self) -> None:
        v = self.judge_with(self.CORE_DROPS, "mcallers:1,", "sysfs")
        self.assertTrue(v.startswith("manual: iio_poll_value() in ") and
                        "ignores the result of ->read_raw()" in v, v)

    def test_a_call_site_on_a_must_not_fail_path(self) -> None:
        v = self.judge_with(self.CORE_CHECKS, "mcallers:1,",
                            "sysfs,mnf:suspend/resume,root,via:device_attribute.show")
        self.assertTrue(v.startswith("manual: iio_read_channel_info() in ") and
                        "must-not-fail root suspend/resume" in v, v)

    def test_a_door_the_graph_cannot_follow(self) -> None:
        # v4l2_subdev_call(sd, core, ioctl, ...) names the member as an argument
        v = self.judge_with(self.CORE_CHECKS, "mcallers:open:read_raw:drivers/x/y.c:12,", "sysfs")
        self.assertTrue(v.startswith("manual: address of foo_read_raw() is stored in .read_raw, "
                                     "which is also used where its calls cannot be followed "
                                     "(drivers/x/y.c:12)"), v)

    def test_address_passed_on_is_not_only_stored(self) -> None:
        driver = self.DRIVER + """
        static int foo_setup(struct foo *data)
        {
        	return register_reader(data, foo_read_raw);
        }
        """
        v = self.judge_with(self.CORE_CHECKS, "mcallers:1,",
                            "sysfs,root,via:device_attribute.show", driver)
        self.assertTrue(v.startswith("manual: address of foo_read_raw() is taken"), v)

    def test_without_the_graph_it_stays_manual(self) -> None:
        v = self.verdict(self.DRIVER, "foo_read_raw", args="&data->lock",
                         reach="t.c\tfoo_read_raw\tsysfs,stored:iio_info.read_raw\n")
        self.assertTrue(v.startswith("manual: address of foo_read_raw() is taken"), v)


class TestOtherBranch(VerdictCase):
    """Code in the then-branch of an if whose else holds the sleep ran on
    another path (iio_read_channel_info() calls ->read_raw_multi() or
    else ->read_raw()); a store after an if's condition is the statement's
    own (gnss_write(): `if (!gdev->disconnected) ret = ...`)."""
    CODE = """
        static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
        {
        	struct foo *foo = f->private_data;
        	int ret;

        	if (cmd == FOO_RESET)
        		schedule_work(&foo->reset_work);
        	else {
        		mutex_lock(&foo->lock);
        		ret = foo->val;
        		mutex_unlock(&foo->lock);
        		return ret;
        	}
        	return 0;
        }
        static int foo_release(struct inode *inode, struct file *f)
        {
        	return 0;
        }
        """

    def test_then_branch_is_another_path(self) -> None:
        self.assertEqual(self.verdict(self.CODE, "foo_ioctl", args="&foo->lock"), "converted")

    def test_code_before_the_if_still_counts(self) -> None:
        code = self.CODE.replace("\tif (cmd == FOO_RESET)\n", "\tschedule_work(&foo->other_work);\n"
                                 "        \tif (cmd == FOO_RESET)\n")
        v = self.verdict(code, "foo_ioctl", args="&foo->lock")
        self.assertTrue(v.startswith("manual: schedule_work() is called before the sleep"), v)

    def test_store_after_a_condition_is_the_local(self) -> None:
        code = """
        static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
        {
        	struct foo *foo = f->private_data;
        	int ret = -ENODEV;

        	if (!foo->disconnected)
        		ret = 0;
        	mutex_lock(&foo->lock);
        	foo->val = ret;
        	mutex_unlock(&foo->lock);
        	return ret;
        }
        static int foo_release(struct inode *inode, struct file *f)
        {
        	return 0;
        }
        """
        self.assertEqual(self.verdict(code, "foo_ioctl", args="&foo->lock"), "converted")


class TestGlobalCallers(VerdictCase):
    """A global function: its calls in other files, from the audit's grep,
    each read in its own file (a driver's core.c helper called by the
    driver's ioctl in main.c)."""
    HELPER = """
        int foo_write_reg(struct foo *foo, unsigned int reg, u32 val)
        {
        	int ret;

        	mutex_lock(&foo->lock);
        	ret = regmap_write(foo->map, reg, val);
        	mutex_unlock(&foo->lock);
        	return ret;
        }
        """
    CALLER = """
        static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
        {
        	struct foo *foo = f->private_data;
        	int ret;

        	ret = foo_write_reg(foo, 1, arg);
        	if (ret)
        		return ret;
        	return 0;
        }
        """

    def judge_with(self, caller: str, classes: str, line: int = 7) -> str:
        cpath = os.path.join(self.tmp.name, "main.c")
        with open(cpath, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(caller))
        reach = (f"t.c\tfoo_write_reg\tioctl,xcallers:1:main.c:foo_ioctl,{classes}"
                 f"gcall:{cpath}:{line}\n"
                 "main.c\tfoo_ioctl\tioctl,root,via:file_operations.unlocked_ioctl\n")
        return self.verdict(self.HELPER, "foo_write_reg", args="&foo->lock", reach=reach)

    def test_callers_that_check_convert(self) -> None:
        self.assertEqual(self.judge_with(self.CALLER, "gcallers:1,"), "converted")

    def test_a_caller_that_drops_the_result(self) -> None:
        v = self.judge_with(self.CALLER.replace("ret = foo_write_reg", "foo_write_reg"),
                            "gcallers:1,")
        self.assertTrue(v.startswith("manual: foo_ioctl() in ") and "ignores the result" in v, v)

    def test_a_call_outside_any_function(self) -> None:
        v = self.judge_with(self.CALLER, "gcallers:1,", line=3)
        self.assertTrue(v.startswith("manual: a call of foo_write_reg() at ") and
                        "outside any function the tool reads" in v, v)

    def test_exported_decided_by_the_callers_in_the_tree(self) -> None:
        # Modules outside the tree are not seen: the batch's commit message
        # says so; the callers inside decide.
        self.assertEqual(self.judge_with(self.CALLER, "gcallers:exported,gcallers:1,"), "converted")
        v = self.judge_with(self.CALLER.replace("ret = foo_write_reg", "foo_write_reg"),
                            "gcallers:exported,gcallers:1,")
        self.assertTrue(v.startswith("manual: foo_ioctl() in ") and "ignores the result" in v, v)

    def test_a_caller_that_reads_the_error_as_a_value(self) -> None:
        # After lirc_transmit(): `int carrier = ir_raw_encode_carrier(...);
        # if (carrier > 0) ...`: -EINTR reads as "no carrier" and it goes on.
        caller = self.CALLER.replace(
            "ret = foo_write_reg(foo, 1, arg);\n        \tif (ret)\n        \t\treturn ret;",
            "int carrier = foo_write_reg(foo, 1, arg);\n\n        \tif (carrier > 0)\n"
            "        \t\tfoo->x = carrier;")
        self.assertNotEqual(caller, self.CALLER)
        v = self.judge_with(caller, "gcallers:1,")
        self.assertTrue(v.startswith("manual: foo_ioctl() does not check the result"), v)

    def test_a_caller_that_undoes_on_any_error(self) -> None:
        # After state_store(): `ret = adf_dev_up(); if (ret == -EALREADY)
        # break; else if (ret) { adf_dev_down(); return ret; }`: a killed
        # lock wait did nothing for the caller's error branch to take down.
        for test in ("if (ret == -EALREADY)\n        \t\treturn 0;\n        \telse if (ret) {\n"
                     "        \t\tfoo_down(foo);\n        \t\treturn ret;\n        \t}",):
            caller = self.CALLER.replace("if (ret)\n        \t\treturn ret;", test)
            self.assertNotEqual(caller, self.CALLER)
            v = self.judge_with(caller, "gcallers:1,")
            self.assertTrue(v.startswith("manual: foo_ioctl() does not check the result"), v)

    def test_hidden_callers_stay_manual(self) -> None:
        v = self.judge_with(self.CALLER, "gcallers:open:drivers/foo/foo.h:12,")
        self.assertTrue(v.startswith("manual: foo_write_reg() is not static, and a mention at "
                                     "drivers/foo/foo.h:12 hides callers"), v)

    def test_without_the_grep_it_stays_manual(self) -> None:
        v = self.verdict(self.HELPER, "foo_write_reg", args="&foo->lock",
                         reach="t.c\tfoo_write_reg\tioctl,xcallers:1:main.c:foo_ioctl\n")
        self.assertEqual(v, "manual: foo_write_reg() is not static; callers in other files are "
                            "not checked")

    def test_a_subset_stops_the_walk_at_its_edge(self) -> None:
        # tests/precision/reach.tsv keeps one step of callers' files
        cpath = os.path.join(self.tmp.name, "main.c")
        with open(cpath, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(self.CALLER))
        reach = (f"# subset: t.c\n"
                 f"t.c\tfoo_write_reg\tioctl,gcallers:1,gcall:{cpath}:7\n")
        v = self.verdict(self.HELPER, "foo_write_reg", args="&foo->lock", reach=reach)
        self.assertEqual(v, f"manual: callers in {cpath} are outside the reach facts given "
                            "(a subset)")
        v = self.verdict(self.HELPER, "foo_write_reg", args="&foo->lock",
                         reach=reach.replace("# subset: t.c", f"# subset: t.c {cpath}"))
        self.assertEqual(v, "converted")


class TestReviewFindings(VerdictCase):
    """The fifteenth review's unsafe conversions, each a general fix."""

    def test_a_disable_is_a_state_change(self) -> None:
        # do_migrate_pages(): lru_cache_disable() ... lru_cache_enable() after
        code = """
        static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
        {
        	struct foo *foo = f->private_data;
        	int err = 0;

        	foo_cache_disable();
        	mutex_lock(&foo->lock);
        	err = foo_migrate(foo);
        	mutex_unlock(&foo->lock);
        	foo_cache_enable();
        	return err;
        }
        static int foo_release(struct inode *inode, struct file *f)
        {
        	return 0;
        }
        """
        v = self.verdict(code, "foo_ioctl", args="&foo->lock")
        self.assertTrue(v.startswith("manual: foo_cache_disable() is called before the sleep"), v)

    def test_a_label_that_puts_state_back(self) -> None:
        # nilfs_remount(): restore_opts: puts sb->s_flags and the options back
        code = """
        static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
        {
        	struct foo *foo = f->private_data;
        	unsigned long old_flags = foo->flags;
        	int err;

        	foo->flags = arg;
        	err = -EINVAL;
        	if (!foo->valid)
        		goto restore;
        	if (arg == old_flags)
        		goto out;
        	mutex_lock(&foo->lock);
        	foo_apply(foo);
        	mutex_unlock(&foo->lock);
        out:
        	return 0;
        restore:
        	foo->flags = old_flags;
        	return err;
        }
        static int foo_release(struct inode *inode, struct file *f)
        {
        	return 0;
        }
        """
        v = self.verdict(code, "foo_ioctl", args="&foo->lock")
        self.assertTrue(v.startswith("manual: the earlier error exit's label restore: puts "
                                     "foo->flags back"), v)

    def test_an_exit_frees_what_a_helper_allocated(self) -> None:
        # rtw89_debug_priv_early_h2c_set(): kfree(h2c) of rtw89_hex2bin_user()'s buffer
        code = """
        static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
        {
        	struct foo *foo = f->private_data;
        	struct foo_msg *msg;
        	u8 *buf;

        	buf = foo_parse_user(foo, arg);
        	if (IS_ERR(buf))
        		return -EFAULT;
        	msg = kmalloc(sizeof(*msg), GFP_KERNEL);
        	if (!msg) {
        		kfree(buf);
        		return -ENOMEM;
        	}
        	msg->buf = buf;
        	mutex_lock(&foo->lock);
        	list_add_tail(&msg->list, &foo->msgs);
        	mutex_unlock(&foo->lock);
        	return 0;
        }
        static int foo_release(struct inode *inode, struct file *f)
        {
        	return 0;
        }
        """
        v = self.verdict(code, "foo_ioctl", args="&foo->lock")
        self.assertTrue(v.startswith("manual: kfree() in an earlier error exit undoes something "
                                     "held"), v)

    def test_user_space_in_a_kernel_tree(self) -> None:
        # tools/perf/util/symbol.c: perf's own mutex_lock()
        tree = os.path.join(self.tmp.name, "linux")
        os.makedirs(os.path.join(tree, "include", "linux"))
        os.makedirs(os.path.join(tree, "tools", "perf"))
        open(os.path.join(tree, "Kconfig"), "w").close()
        k = rules.Rules()
        self.assertTrue(k.in_user_space(os.path.join(tree, "tools", "perf", "symbol.c")))
        self.assertFalse(k.in_user_space(os.path.join(tree, "drivers", "char", "mem.c")))
        self.assertFalse(k.in_user_space(os.path.join(self.tmp.name, "tools", "t.c")))


class TestCheckThatRaises(VerdictCase):
    """A check that raises on one site leaves that site manual with the
    error named, never the file lost (afe_apr_send_pkt's `*wait` raised in
    the object check at stop 37, and q6afe.c lost both its sites)."""

    def test_site_manual_with_the_error(self) -> None:
        def broken(c: checks.Context) -> str:
            return str(1 // 0)
        old = list(checks.CHECKS)
        checks.CHECKS.insert(0, broken)
        self.addCleanup(lambda: checks.CHECKS.__setitem__(slice(None), old))
        v = self.verdict("""
            static long f_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
            {
            	mutex_lock(&lock);
            	mutex_unlock(&lock);
            	return 0;
            }
            """, "f_ioctl")
        self.assertTrue(v.startswith("manual: the verdict checks failed on this site "
                                     "(ZeroDivisionError at test_checks.py:"), v)


class TestResultLiveAcross(unittest.TestCase):
    """rfkill_fop_read(): `ret = wait_event_interruptible(...);
    mutex_lock(&data->mtx); if (ret) goto out;`: `ret = twin()` would lose
    the wait's -ERESTARTSYS, so the result-local shapes are not used."""

    TEXT = ("{\n\tint ret;\n\twhile (list_empty(&d->events)) {\n\t\tmutex_unlock(&d->mtx);\n"
            "\t\tret = wait_event_interruptible(d->wq, !list_empty(&d->events));\n"
            "\t\tmutex_lock(&d->mtx);\n\t\tif (ret)\n\t\t\tgoto out;\n\t}\n"
            "\tret = 1;\nout:\n\tmutex_unlock(&d->mtx);\n\treturn ret;\n}\n")

    def test_read_after_the_sleep(self) -> None:
        off = self.TEXT.index("mutex_lock(&d->mtx);")
        self.assertTrue(rules.result_live_across("ret", "\n\t\t", self.TEXT, off))

    def test_tested_before_or_stored_again(self) -> None:
        off = self.TEXT.index("mutex_lock(&d->mtx);")
        self.assertFalse(rules.result_live_across("ret", "\n\t\tif (ret)\n\t\t\treturn ret;\n",
                                                  self.TEXT, off))
        text = self.TEXT.replace("\t\tif (ret)\n\t\t\tgoto out;\n", "")
        self.assertFalse(rules.result_live_across("ret", "\n\t\t", text,
                                                  text.index("mutex_lock(&d->mtx);")))


    def test_a_value_a_negative_test_keeps(self) -> None:
        # power_role_store() (drivers/usb/typec/class.c:1482-1494): `ret =
        # sysfs_match_string(...); if (ret < 0) return ret;` leaves the
        # role in ret, which ->pr_set() gets after the lock.
        text = ("{\n\tint ret;\n\tret = sysfs_match_string(roles, buf);\n\tif (ret < 0)\n"
                "\t\treturn ret;\n\tmutex_lock(&p->lock);\n\tif (p->type != DRP) {\n"
                "\t\tret = -EOPNOTSUPP;\n\t\tgoto unlock;\n\t}\n\tret = p->ops->pr_set(p, ret);\n"
                "\tmutex_unlock(&p->lock);\n\treturn ret;\n}\n")
        off = text.index("mutex_lock(")
        between = text[text.index(";", text.index("sysfs_match_string")) + 1:off]
        self.assertTrue(rules.result_live_across("ret", between, text, off))
        # `if (ret)` leaves only 0.
        zero = between.replace("ret < 0", "ret")
        self.assertFalse(rules.result_live_across("ret", zero, text.replace("ret < 0", "ret"), off - 4))

class TestStoresIn(unittest.TestCase):
    def test_a_macro_that_names_a_place(self) -> None:
        # free_segment_range() (fs/f2fs/gc.c:2007): `MAIN_SECS(sbi) -= secs;`
        # before gc_lock, put back only at out:.
        self.assertEqual(body.stores_in("\n\tMAIN_SECS(sbi) -= secs;\n"), ["MAIN_SECS(sbi)"])
        self.assertEqual(body.stores_in("\n\tif (f(a)) b->x = 2;\n"), ["b->x"])
        self.assertEqual(body.stores_in("\n\tif (x) y = 1;\n"), [])

    def test_a_pointer_to_an_array_is_declared_not_stored(self) -> None:
        # scarlett2_talkback_map_ctl_put() (sound/usb/mixer_scarlett2.c:3110):
        # `const int (*port_count)[N] = ...` declares a local and calls no int().
        decl = "\n\tconst int (*port_count)[DIRNS] =\n\t\tpriv->info->port_count;\n"
        self.assertEqual(body.stores_in(decl), [])
        self.assertEqual(body.calls_in(decl), [])
        self.assertEqual(body.stores_in("\n\t(*rows)[i] = 1;\n"), ["*rows)[i]"])
        self.assertEqual(body.stores_in("\n\tif (x) a = 0;\n\telse (*rows)[i] = 1;\n"),
                         ["*rows)[i]"])

    def test_a_local_array_initialized_is_declared_not_stored(self) -> None:
        # dt9812_read_info() (drivers/comedi/drivers/dt9812.c:385) builds its
        # command in `u8 reg[2] = { ... }`; ad5360_write_unlocked() its
        # transfers in `struct spi_transfer t[] = { ... }`.
        self.assertEqual(body.stores_in("\n\tu8 reg[2] = { 0, 1 };\n"), [])
        self.assertEqual(body.stores_in("\n\tstruct spi_transfer t[] = {\n\t\t{ .len = 2 },\n\t};\n"),
                         [])
        self.assertEqual(body.stores_in("\n\tstatic const u8 map[N][M] = { };\n"), [])
        self.assertEqual(body.stores_in("\n\treg[1] = 3;\n"), ["reg[1]"])

    def test_else_is_not_part_of_the_place(self) -> None:
        # eeprom_update_client() (drivers/misc/eeprom/eeprom.c:47):
        # `else buf[i] = ...;` stores into buf[i], a local array.
        self.assertEqual(body.stores_in("\n\tif (x) a = 0;\n\telse buf[i] = 1;\n"), ["buf[i]"])
        self.assertEqual(body.stores_in("\n\tif (x) a = 0;\n\telse st->v = 1;\n"), ["st->v"])


class TestTimeLeftType(VerdictCase):
    """checks.time_left_type: a `_timeout` wait's result must be able to
    stay negative in its local for the twin's `< 0` test."""

    def judge(self, decl: str, timeout: str = "HZ") -> str:
        code = ("#include <linux/completion.h>\n"
                "struct foo { struct completion done; u32 val; };\n"
                "static struct foo *foo_dev;\n"
                "static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)\n"
                "{\n"
                "\tstruct foo *f = foo_dev;\n"
                f"\t{decl}\n\n"
                f"\tret = wait_for_completion_timeout(&f->done, {timeout});\n"
                "\tif (!ret)\n"
                "\t\treturn -ETIMEDOUT;\n"
                "\treturn f->val;\n"
                "}\n")
        return self.verdict(code, "foo_ioctl", "wait_for_completion_timeout")

    def test_signed_and_lone_unsigned_locals_convert(self) -> None:
        for decl in ("long ret;", "int i, ret = 0;", "unsigned long ret;"):
            self.assertEqual(self.judge(decl), "converted", decl)

    def test_unsigned_shared_declaration_is_manual(self) -> None:
        self.assertIn("ret is not a signed local", self.judge("unsigned long flags, ret;"))

    def test_u32_is_manual(self) -> None:
        self.assertIn("ret is not a signed local", self.judge("u32 ret;"))

    def test_int_for_an_endless_wait_is_manual(self) -> None:
        self.assertIn("int ret cannot hold the time left",
                      self.judge("int ret;", "MAX_SCHEDULE_TIMEOUT"))


class TestFailsAlready(VerdictCase):
    """A function that already fails at run time right after the sleep:
    what it did before the sleep is left behind by that existing exit, as
    it would be by the new one.  Not so for what its callers did: their
    handling of a failure that rarely happens is no proof (nilfs_rename
    has linked the new name before nilfs_delete_entry() fails; igb's
    callers have changed the VF count before igb_sriov_reinit())."""

    # adxl355_set_odr (drivers/iio/accel/adxl355_core.c) fails when its
    # register write does.
    SET = """
        static int set_odr(struct foo *foo, int odr)
        {
        	int ret;

        	mutex_lock(&foo->lock);
        	ret = regmap_write(foo->map, REG_ODR, odr);
        	FAIL
        	foo->odr = odr;
        err_unlock:
        	mutex_unlock(&foo->lock);
        	return ret;
        }
        static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
        {
        	struct foo *foo = file->private_data;
        	int ret;

        	ret = set_odr(foo, arg);
        	if (ret)
        		return ret;
        	return 0;
        }
        """
    TEST = "if (ret)\n        \t\tgoto err_unlock;"

    def own(self, before: str, fail: str = TEST, after_lock: str = "") -> str:
        code = self.SET.replace("FAIL", fail).replace(
            "\tmutex_lock(&foo->lock);\n",
            before + "\tmutex_lock(&foo->lock);\n" + after_lock)
        return self.verdict(code, "set_odr", args="&foo->lock")

    def test_own_store_stays_as_on_the_write_failure(self) -> None:
        self.assertEqual(self.own("\tfoo->pending = odr;\n        "), "converted")

    def test_no_failure_after_the_sleep_keeps_the_store(self) -> None:
        self.assertIn("before the sleep; the new error path would not undo it",
                      self.own("\tfoo->pending = odr;\n        ", fail="ret = 0;"))

    def test_failure_that_puts_state_back_is_no_proof(self) -> None:
        v = self.own("\tfoo->pending = odr;\n        ", fail=(
            "if (ret) {\n        \t\tfoo->pending = 0;\n        \t\tgoto err_unlock;\n        \t}"))
        self.assertIn("before the sleep; the new error path would not undo it", v)

    def test_parser_failure_is_no_proof(self) -> None:
        # adp8860_store (drivers/video/backlight/adp8860_bl.c) parses what
        # its caller parsed already: that failure never happens there
        code = self.SET.replace("ret = regmap_write(foo->map, REG_ODR, odr);",
                                "ret = kstrtoint(foo->buf, 10, &odr);").replace(
            "FAIL", self.TEST).replace(
            "\tmutex_lock(&foo->lock);\n", "\tfoo->pending = odr;\n        \tmutex_lock(&foo->lock);\n")
        self.assertIn("before the sleep", self.verdict(code, "set_odr", args="&foo->lock"))

    def test_work_before_the_failing_call_is_no_proof(self) -> None:
        # igb_sriov_reinit's -ENOMEM comes after it tore the interface down:
        # that exit leaves more done than one at the lock would
        v = self.own("\tfoo->pending = odr;\n        ",
                     after_lock="        \tfoo_teardown(foo);\n")
        self.assertIn("before the sleep; the new error path would not undo it", v)

    def test_early_exits_of_other_paths_do_not_end_it(self) -> None:
        # adxl355_set_odr returns early when the rate is already set, in a
        # block of its own, before the failing mode write
        after = ("        \tif (foo->odr == odr) {\n        \t\tmutex_unlock(&foo->lock);\n"
                 "        \t\treturn 0;\n        \t}\n        \tif (!odr)\n"
                 "        \t\tgoto err_unlock;\n")
        self.assertEqual(self.own("\tfoo->pending = odr;\n        ", after_lock=after), "converted")
        # an unconditional exit ends the path before the failing call
        self.assertIn("before the sleep", self.own("\tfoo->pending = odr;\n        ",
                                                   after_lock="        \tgoto err_unlock;\n"))

    def test_reference_the_failure_exit_leaks_is_no_proof(self) -> None:
        # nbd_open (drivers/block/nbd.c:1596-1609) takes nbd->refs with
        # refcount_inc_not_zero() before config_lock, and its existing
        # failure exit after the lock leaks it: a kill must not reach that
        v = self.own("\tif (!refcount_inc_not_zero(&foo->refs))\n        \t\treturn -ENXIO;\n        ")
        self.assertIn("refcount_inc_not_zero() is called before the sleep", v)
        # snd_cmipci_playback2_open: open_device_check() marks the channel
        v = self.own("\tret = open_device_check(foo);\n        ")
        self.assertIn("open_device_check() is called before the sleep", v)

    def test_caller_effects_are_not_proven(self) -> None:
        # nilfs_rename links the new name before nilfs_delete_entry(), whose
        # rare failure leaves it linked: a kill must not reach that
        code = self.SET.replace("FAIL", self.TEST).replace(
            "\tret = set_odr(foo, arg);", "\tfoo_stop_capture(foo);\n        \tret = set_odr(foo, arg);")
        self.assertEqual(self.verdict(code, "set_odr", args="&foo->lock"),
                         "manual: foo_ioctl(): foo_stop_capture() is called before it calls "
                         "set_odr(); the new error would not undo it")


class TestStackHandoff(unittest.TestCase):
    """What hands a stack object on: its address, or an array's name; a
    member's value is a copy (gntalloc_ioctl_alloc's kcalloc(op.count))."""

    def handed(self, window: str) -> str:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.c")
            text = "static void f(void)\n{\n}\n"
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return plumbing.stack_handoff(rules.Rules(), csource.scan_text(text, path), window,
                                          {"op", "buf"})

    def test_member_value_is_a_copy(self) -> None:
        self.assertEqual(self.handed("p = kcalloc(op.count, sizeof(*p), GFP_KERNEL);"), "")

    def test_address_and_array_are_handed(self) -> None:
        self.assertEqual(self.handed("foo_submit(dev, &op.hdr);"), "on-stack op is handed to foo_submit()")
        self.assertEqual(self.handed("foo_submit(dev, buf);"), "on-stack buf is handed to foo_submit()")


class TestTimeoutBranch(VerdictCase):
    """A `_timeout` wait whose timeout branch gives up and leaves: the kill
    takes that branch (`<= 0`), an early timeout."""

    # davinci_i2c_xfer_msg (drivers/i2c/busses/i2c-davinci.c:440-496)
    # re-arms the completion, starts the transfer and recovers the bus on
    # a timeout.
    XFER = """
        static int xfer_msg(struct foo *dev)
        {
        	unsigned long time_left;

        	REARM
        	foo_submit(dev);
        	time_left = wait_for_completion_timeout(&dev->cmd_complete, HZ);
        	if (!time_left) {
        		dev_err(dev->dev, "controller timed out");
        		foo_recover_bus(dev);
        		LEAVE
        	}
        	if (dev->err)
        		return -EIO;
        	return dev->len;
        }
        static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
        {
        	return xfer_msg(file->private_data);
        }
        """

    def judge(self, rearm: str = "reinit_completion(&dev->cmd_complete);",
              leave: str = "return -ETIMEDOUT;") -> str:
        return self.verdict(self.XFER.replace("REARM", rearm).replace("LEAVE", leave),
                            "xfer_msg", "wait_for_completion_timeout")

    def test_recovering_branch_takes_the_kill(self) -> None:
        self.assertEqual(self.judge(), "converted")

    def test_completion_not_rearmed_stays_manual(self) -> None:
        # a late complete() of the abandoned transfer would end the next
        # wait early
        self.assertIn("foo_submit() is called before the sleep", self.judge(rearm=""))

    def test_branch_that_does_not_leave_stays_manual(self) -> None:
        self.assertIn("foo_submit() is called before the sleep",
                      self.judge(leave="dev->len = -ETIMEDOUT;"))

    # ocores_xfer_core (drivers/i2c/busses/i2c-ocores.c:380-405): the
    # timeout sets the error and falls through to the common end, which
    # resets the controller and returns it.
    FALL = """
        static int xfer_msg(struct foo *dev)
        {
        	int ret = 0;

        	reinit_completion(&dev->cmd_complete);
        	foo_submit(dev);
        	if (!wait_for_completion_timeout(&dev->cmd_complete, HZ))
        		ret = -ETIMEDOUT;
        	AFTER
        	if (ret) {
        		foo_recover_bus(dev);
        		return ret;
        	}
        	return dev->len;
        }
        static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
        {
        	return xfer_msg(file->private_data);
        }
        """

    def judge_fall(self, after: str = "", text: str = "") -> str:
        return self.verdict((text or self.FALL).replace("AFTER", after), "xfer_msg",
                            "wait_for_completion_timeout")

    def test_branch_that_sets_the_error_and_falls_through(self) -> None:
        self.assertEqual(self.judge_fall(), "converted")

    def test_fall_through_to_more_work_stays_manual(self) -> None:
        # spi-zynq-qspi's exec_op (drivers/spi/spi-zynq-qspi.c:546) goes on
        # to the next phase and waits again after a timeout
        again = ("reinit_completion(&dev->cmd_complete);\n"
                 "        \tfoo_submit(dev);\n"
                 "        \twait_for_completion_timeout(&dev->cmd_complete, HZ);")
        self.assertIn("foo_submit() is called before the sleep", self.judge_fall(again))

    def test_fall_through_that_overwrites_the_error_stays_manual(self) -> None:
        self.assertIn("foo_submit() is called before the sleep",
                      self.judge_fall("ret = foo_status(dev);"))

    def test_fall_through_whose_time_left_is_read_again_stays_manual(self) -> None:
        text = self.FALL.replace("int ret = 0;", "int ret = 0;\n        \tlong t;").replace(
            "if (!wait_for_completion_timeout(&dev->cmd_complete, HZ))",
            "t = wait_for_completion_timeout(&dev->cmd_complete, HZ);\n        \tif (!t)")
        self.assertEqual(self.judge_fall(text=text), "converted")
        self.assertIn("foo_submit() is called before the sleep",
                      self.judge_fall("dev->left = t;", text=text))

    def test_a_queue_through_a_local_pointer_stays_manual(self) -> None:
        # afe_apr_send_pkt (sound/soc/qcom/qdsp6/q6afe.c:962) waits on
        # `*wait`, a local pointer to one of two queues: where it points is
        # not read, and reading it must not crash the file's run.
        v = self.verdict("""
            static int xfer_msg(struct foo *dev, struct foo_port *port)
            {
            	wait_queue_head_t *wait = port ? &port->wait : &dev->wait;
            	int ret;

            	foo_submit(dev);
            	ret = wait_event_timeout(*wait, dev->done, HZ);
            	if (!ret)
            		ret = -ETIMEDOUT;
            	else
            		ret = 0;
            	return ret;
            }
            static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
            {
            	return xfer_msg(file->private_data, NULL);
            }
            """, "xfer_msg", "wait_event_timeout")
        self.assertIn("foo_submit() is called before the sleep", v)

    def judge_gap(self, gap: str) -> str:
        # i2c-bcm-kona's bcm_kona_i2c_read_fifo_single() masks the interrupts
        # between the wait and its test (drivers/i2c/busses/i2c-bcm-kona.c:298)
        text = self.XFER.replace("REARM", "reinit_completion(&dev->cmd_complete);")
        text = text.replace("LEAVE", "return -ETIMEDOUT;")
        text = text.replace("HZ);\n", "HZ);\n" + "".join(
            " " * 8 + line + "\n" for line in gap.splitlines()))
        return self.verdict(text, "xfer_msg", "wait_for_completion_timeout")

    def test_plain_statements_before_the_test_run_on_the_kill_too(self) -> None:
        self.assertEqual(self.judge_gap("\twritel(0, dev->base + 4);\n\tdev->busy = 0;\n"),
                         "converted")

    def test_a_statement_that_reads_the_time_left_stays_manual(self) -> None:
        self.assertIn("foo_submit() is called before the sleep",
                      self.judge_gap("\tdev->left = time_left;\n"))

    def test_a_test_between_stays_manual(self) -> None:
        self.assertIn("foo_submit() is called before the sleep",
                      self.judge_gap("\tif (dev->err)\n\t\treturn -EIO;\n"))
        self.assertIn("foo_submit() is called before the sleep",
                      self.judge_gap("out:\n\tfoo_done(dev);\n"))

    def test_gap_finds_the_test(self) -> None:
        text = "t = wait(&c, HZ);\n\twritel(0, b);\n\tif (!t)\n\t\treturn -EIO;\n"
        off = text.index("wait(")
        start, end = plumbing.timeout_branch(text, off)
        self.assertEqual(text[start:end].strip(), "return -EIO;")
        self.assertEqual(plumbing.timeout_branch(text, off, gap=False), (-1, -1))


class TestTakenByName(VerdictCase):
    """The existing-failure-exit proof keeps out what a call named for
    taking something took, but not a pure helper so named."""

    def test_pure_validator_is_not_taken(self) -> None:
        # macsec_add_txsa (drivers/net/macsec.c:2000-2028): the static
        # validate_add_txsa() only reads the attributes before rtnl_lock
        v = self.verdict("""
            static bool validate_add_x(int *attrs)
            {
            	return attrs[0] > 0;
            }
            static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
            {
            	struct foo *foo = file->private_data;
            	int ret;

            	if (!validate_add_x(foo->attrs))
            		return -EINVAL;
            	foo->pending = arg;
            	mutex_lock(&foo->lock);
            	ret = regmap_write(foo->map, 1, arg);
            	if (ret)
            		goto out;
            	foo->val = arg;
            out:
            	mutex_unlock(&foo->lock);
            	return ret;
            }
            """, "foo_ioctl", args="&foo->lock")
        self.assertEqual(v, "converted")
