/*
 * mutex_ioctl_other_case: a VM ioctl's switch, after kvm_arch_vm_ioctl()
 * (arch/x86/kvm/x86.c): `case SET_TSS_ADDR:` calls a helper that writes
 * the VM's state and breaks; `case SET_IDENTITY_MAP_ADDR: {` takes the VM
 * lock in a block of its own.  The other case's code never runs before
 * the lock, so it is nothing the new failure would have to undo.
 *
 * Expect: the lock in the identity-map case converted, leaving with
 * -EINTR before anything is taken; the other case unchanged.  Report:
 * converted.
 */
// setup: kt_file.private_data = &vm0
// entry: vmx_vm_ioctl(&kt_file, VMX_SET_IDENTITY_MAP_ADDR, (unsigned long)kt_ubuf)
// entry: vmx_vm_ioctl(&kt_file, VMX_SET_TSS_ADDR, 4096)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#define VMX_SET_TSS_ADDR		_IO('v', 1)
#define VMX_SET_IDENTITY_MAP_ADDR	_IOW('v', 2, u64)

struct vmx_vm {
	struct mutex lock;
	int created_vcpus;
	unsigned long tss_addr;
	u64 ident_addr;
};

static struct vmx_vm vm0 = { .lock = __MUTEX_INITIALIZER(vm0.lock) };

static int vmx_set_tss_addr(struct vmx_vm *vm, unsigned long addr)
{
	if (addr > 0xfffff000)
		return -EINVAL;
	vm->tss_addr = addr;
	return 0;
}

static long vmx_vm_ioctl(struct file *filp, unsigned int ioctl, unsigned long arg)
{
	struct vmx_vm *vm = filp->private_data;
	void __user *argp = (void __user *)arg;
	int r = -ENOTTY;

	switch (ioctl) {
	case VMX_SET_TSS_ADDR:
		r = vmx_set_tss_addr(vm, arg);
		break;
	case VMX_SET_IDENTITY_MAP_ADDR: {
		u64 ident_addr;

		mutex_lock(&vm->lock);
		r = -EINVAL;
		if (vm->created_vcpus)
			goto set_identity_unlock;
		r = -EFAULT;
		if (copy_from_user(&ident_addr, argp, sizeof(ident_addr)))
			goto set_identity_unlock;
		vm->ident_addr = ident_addr;
		r = 0;
set_identity_unlock:
		mutex_unlock(&vm->lock);
		break;
	}
	default:
		break;
	}
	return r;
}

static const struct file_operations vmx_vm_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= vmx_vm_ioctl,
};

MODULE_LICENSE("GPL");
