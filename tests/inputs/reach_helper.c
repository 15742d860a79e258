/*
 * A non-static helper with no root in its own file: only cross-file
 * reachability (make audit's reach file) can say a system call runs it.
 */
struct xbuf {
	struct mutex lock;
	int len;
};

int xbuf_reset(struct xbuf *b)
{
	mutex_lock(&b->lock);
	b->len = 0;
	mutex_unlock(&b->lock);
	return 0;
}

void xbuf_teardown(struct xbuf *b)
{
	mutex_lock(&b->lock);
	b->len = -1;
	mutex_unlock(&b->lock);
}
