/*
 * schedule_timeout_scsi_disposition: modelled on
 * drivers/scsi/lpfc/lpfc_scsi.c:lpfc_reset_flush_io_context() and its
 * caller lpfc_device_reset_handler() (the host template's
 * eh_device_reset_handler).  The flush polls the outstanding I/O count,
 * sleeping with schedule_timeout_uninterruptible() between polls, and
 * returns a SCSI disposition: SUCCESS (0x2002) or FAILED (0x2003).  The
 * handler returns that disposition; the reset ioctl stands in for
 * scsi_ioctl_reset(), which compares it with SUCCESS.
 *
 * Expect: no change; report `manual`.  The function's `int` is a SCSI
 * disposition, never a negative errno; none of its paths returns one, so
 * -EINTR is a value its callers do not know (the SCSI midlayer switches
 * on SUCCESS/FAILED/FAST_IO_FAIL and treats anything else as its own).
 */
// setup: kt_file.private_data = &lpfc_vport0; lpfc_vport0.phba = &lpfc_hba0; lpfc_vport0.cfg_devloss_tmo = 1
// entry: ({ lpfc_hba0.fcp_outstanding = 0; lpfc_sg_ioctl(&kt_file, SG_SCSI_RESET, SG_SCSI_RESET_DEVICE); })
// entry: ({ lpfc_hba0.fcp_outstanding = 3; lpfc_hba0.abort_polls = 2; lpfc_sg_ioctl(&kt_file, SG_SCSI_RESET, SG_SCSI_RESET_DEVICE); })
// entry: ({ lpfc_hba0.fcp_outstanding = 3; lpfc_hba0.abort_polls = 1000; lpfc_sg_ioctl(&kt_file, SG_SCSI_RESET, SG_SCSI_RESET_DEVICE); })
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>

/* include/scsi/scsi.h: midlayer dispositions */
#define SUCCESS		0x2002
#define FAILED		0x2003
#define FAST_IO_FAIL	0x2006

#define SG_SCSI_RESET		0x2284
#define SG_SCSI_RESET_DEVICE	1

typedef enum _lpfc_ctx_cmd {
	LPFC_CTX_LUN,
	LPFC_CTX_TGT,
	LPFC_CTX_HOST
} lpfc_ctx_cmd;

struct lpfc_hba {
	int fcp_outstanding;	/* I/Os the port still owns */
	int abort_polls;	/* model: aborts complete after this many polls */
};

struct lpfc_vport {
	struct lpfc_hba *phba;
	u32 cfg_devloss_tmo;
};

static struct lpfc_hba lpfc_hba0;
static struct lpfc_vport lpfc_vport0;

static int lpfc_sli_sum_iocb(struct lpfc_vport *vport, u16 tgt_id, u64 lun_id,
			     lpfc_ctx_cmd ctx_cmd)
{
	struct lpfc_hba *phba = vport->phba;

	if (phba->abort_polls > 0 && --phba->abort_polls == 0)
		phba->fcp_outstanding = 0;
	return phba->fcp_outstanding;
}

static void lpfc_sli_abort_taskmgmt(struct lpfc_vport *vport, u16 tgt_id,
				    u64 lun_id, lpfc_ctx_cmd cmd)
{
	pr_info("lpfc: aborting I/O for %u:%llu\n", tgt_id, (unsigned long long)lun_id);
}

/**
 * lpfc_reset_flush_io_context -
 * @vport: The virtual port (scsi_host) for the flush context
 * @tgt_id: If aborting by Target contect - specifies the target id
 * @lun_id: If aborting by Lun context - specifies the lun id
 * @context: specifies the context level to flush at.
 *
 * After a reset condition via TMF, we need to flush orphaned i/o
 * contexts from the adapter. This routine aborts any contexts
 * outstanding, then waits for their completions. The wait is
 * bounded by devloss_tmo though.
 *
 * Return code :
 *  0x2003 - Error
 *  0x2002 - Success
 **/
static int
lpfc_reset_flush_io_context(struct lpfc_vport *vport, u16 tgt_id,
			    u64 lun_id, lpfc_ctx_cmd context)
{
	unsigned long later;
	int cnt;

	cnt = lpfc_sli_sum_iocb(vport, tgt_id, lun_id, context);
	if (cnt)
		lpfc_sli_abort_taskmgmt(vport, tgt_id, lun_id, context);
	later = msecs_to_jiffies(2 * vport->cfg_devloss_tmo * 1000) + jiffies;
	while (time_after(later, jiffies) && cnt) {
		schedule_timeout_uninterruptible(msecs_to_jiffies(20));
		cnt = lpfc_sli_sum_iocb(vport, tgt_id, lun_id, context);
	}
	if (cnt) {
		pr_err("0724 I/O flush failure for context %s : cnt x%x\n",
		       ((context == LPFC_CTX_LUN) ? "LUN" :
			((context == LPFC_CTX_TGT) ? "TGT" :
			 ((context == LPFC_CTX_HOST) ? "HOST" : "Unknown"))),
		       cnt);
		return FAILED;
	}
	return SUCCESS;
}

static int
lpfc_device_reset_handler(struct lpfc_vport *vport, u16 tgt_id, u64 lun_id)
{
	int status;

	if (!vport->phba)
		return FAILED;

	/* lpfc_send_taskmgmt(vport, rport, tgt_id, lun_id, FCP_LUN_RESET) */
	status = SUCCESS;

	/*
	 * We have to clean up i/o as : they may be orphaned by the TMF;
	 * or if the TMF failed, they may be in an indeterminate state.
	 * So, continue on.
	 * We will report success if all the i/o aborts successfully.
	 */
	if (status == SUCCESS)
		status = lpfc_reset_flush_io_context(vport, tgt_id, lun_id,
						     LPFC_CTX_LUN);

	return status;
}

/* sg_ioctl(SG_SCSI_RESET) -> scsi_ioctl_reset(), flattened */
static long lpfc_sg_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct lpfc_vport *vport = file->private_data;
	int rtn;

	if (cmd != SG_SCSI_RESET)
		return -ENOTTY;
	if (arg != SG_SCSI_RESET_DEVICE)
		return -EINVAL;

	rtn = lpfc_device_reset_handler(vport, 0, 0);
	return rtn == SUCCESS ? 0 : -EIO;
}

static const struct file_operations lpfc_sg_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= lpfc_sg_ioctl,
};

MODULE_LICENSE("GPL");
