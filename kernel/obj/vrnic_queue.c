// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: work and completion queues shared with librxe.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "obj/vrnic_queue.h"

/* A queue buffer exposed to mmap; freed when the last reference goes. */
struct vrnic_mmap_entry {
	struct rdma_user_mmap_entry	rdma;
	void				*buf;
};

static struct vrnic_mmap_entry *
to_vrnic_mmap_entry(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct vrnic_mmap_entry, rdma);
}

/* Largest queue we hand out: 2^20 slots, and no more than 256 MiB. */
#define VRNIC_QUEUE_MAX_SLOTS	BIT(20)
#define VRNIC_QUEUE_MAX_BYTES	(256UL << 20)

/**
 * vrnic_queue_init - allocate a ring for at least *@num_elem elements
 * @q:		the queue to set up
 * @num_elem:	in: elements wanted; out: usable elements (slots - 1)
 * @elem_size:	bytes per element, rounded up to a power of two
 * @dir:	producer/consumer roles
 *
 * Return: 0, -EINVAL for a size out of range, or -ENOMEM.
 */
int vrnic_queue_init(struct vrnic_queue *q, unsigned int *num_elem,
		     size_t elem_size, enum vrnic_queue_dir dir)
{
	unsigned int slots, shift;
	size_t bytes;

	if (!*num_elem || *num_elem >= VRNIC_QUEUE_MAX_SLOTS || !elem_size ||
	    elem_size > SZ_64K)
		return -EINVAL;

	slots = roundup_pow_of_two(*num_elem + 1);
	shift = order_base_2(elem_size);
	bytes = sizeof(*q->buf) + ((size_t)slots << shift);
	if (bytes > VRNIC_QUEUE_MAX_BYTES)
		return -EINVAL;

	/* vmalloc_user() zeroes and page-aligns: safe to map into a process. */
	q->buf = vmalloc_user(PAGE_ALIGN(bytes));
	if (!q->buf)
		return -ENOMEM;
	q->buf_size = PAGE_ALIGN(bytes);
	q->elem_shift = shift;
	q->mask = slots - 1;
	q->dir = dir;
	q->index = 0;
	q->mmap = NULL;
	q->buf->log2_elem_size = shift;
	q->buf->index_mask = q->mask;
	*num_elem = slots - 1;
	return 0;
}

/**
 * vrnic_queue_mmap_info - expose the queue to the process of @uctx
 * @q:		a queue with a user direction
 * @uctx:	the process's context
 * @mi:		filled with the mmap offset and size for the response
 *
 * From here on the mmap entry owns the buffer.
 */
int vrnic_queue_mmap_info(struct vrnic_queue *q, struct ib_ucontext *uctx,
			  struct mminfo *mi)
{
	struct vrnic_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->buf = q->buf;
	err = rdma_user_mmap_entry_insert(uctx, &entry->rdma, q->buf_size);
	if (err) {
		kfree(entry);
		return err;
	}
	q->mmap = entry;
	mi->offset = rdma_user_mmap_get_offset(&entry->rdma);
	mi->size = q->buf_size;
	mi->pad = 0;
	return 0;
}

/**
 * vrnic_queue_move - copy the elements waiting in @old to the start of @new
 * @new:	a fresh queue from vrnic_queue_init(), same element size
 *		and direction as @old
 * @old:	the queue @new replaces; its owner's lock is held, so the
 *		kernel's own side of it cannot move
 *
 * The oldest element lands in slot 0 and the count is published in @new.
 * Each index of @old is read once: the user's side of it may change under
 * us, and a second read would copy a different run of slots than counted.
 *
 * Return: 0, or -EINVAL (nothing copied) when @new cannot hold them.
 */
int vrnic_queue_move(struct vrnic_queue *new, const struct vrnic_queue *old)
{
	u32 cons = vrnic_queue_consumer(old);
	u32 count = (vrnic_queue_producer(old) - cons) & old->mask;
	u32 i;

	if (count > new->mask || new->elem_shift != old->elem_shift)
		return -EINVAL;
	for (i = 0; i < count; i++)
		memcpy(vrnic_queue_slot(new, i), vrnic_queue_slot(old, cons + i),
		       vrnic_queue_elem_size(old));
	/* Ours is the producer side when we produce into the ring. */
	if (new->dir == VRNIC_QUEUE_TO_USER || new->dir == VRNIC_QUEUE_TO_KERNEL)
		new->index = count;
	/* The copied elements are in place before the new ring shows them. */
	smp_store_release(&new->buf->producer_index, count);
	return 0;
}

/* Forget the ring's contents: both indices back to zero (QP reset). */
void vrnic_queue_reset(struct vrnic_queue *q)
{
	q->index = 0;
	/* Release, as every index store: pairs with vrnic_queue_producer(). */
	smp_store_release(&q->buf->producer_index, 0);
	/* And with vrnic_queue_consumer()'s acquire. */
	smp_store_release(&q->buf->consumer_index, 0);
	memset(q->buf->data, 0, q->buf_size - sizeof(*q->buf));
}

void vrnic_queue_cleanup(struct vrnic_queue *q)
{
	if (q->mmap)
		/* The entry frees the buffer once no mapping is left. */
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->buf);
	q->buf = NULL;
	q->mmap = NULL;
}

/* The SGE list of a kernel work request, in the rxe WQE layout. */
void vrnic_dma_info_fill(struct rxe_dma_info *dma, const struct ib_sge *sg,
			 int num_sge, u32 length)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dma->sge[i].addr = sg[i].addr;
		dma->sge[i].length = sg[i].length;
		dma->sge[i].lkey = sg[i].lkey;
	}
	dma->length = length;
	dma->resid = length;
	dma->num_sge = num_sge;
	dma->cur_sge = 0;
	dma->sge_offset = 0;
}

/**
 * vrnic_queue_post_recv - write one receive WQE for a kernel consumer
 * @q:		an RQ or SRQ with direction FROM_KERNEL
 * @wr:		the work request
 * @max_sge:	SGEs the queue was created for
 *
 * Context: the caller serialises producers.
 * Return: 0, -EINVAL for a bad SGE count or length, -ENOMEM when full.
 */
int vrnic_queue_post_recv(struct vrnic_queue *q, const struct ib_recv_wr *wr,
			  u32 max_sge)
{
	struct rxe_recv_wqe *wqe;
	u64 length = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	if (length > U32_MAX)
		return -EINVAL;
	if (vrnic_queue_full(q))
		return -ENOMEM;

	wqe = vrnic_queue_producer_slot(q);
	wqe->wr_id = wr->wr_id;
	vrnic_dma_info_fill(&wqe->dma, wr->sg_list, wr->num_sge, length);
	vrnic_queue_advance_producer(q);
	return 0;
}

int vrnic_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct vrnic_mmap_entry *entry;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = to_vrnic_mmap_entry(rdma_entry);
	if (vma->vm_end - vma->vm_start > rdma_entry->npages * PAGE_SIZE)
		err = -EINVAL;
	else
		err = remap_vmalloc_range(vma, entry->buf, 0);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

void vrnic_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct vrnic_mmap_entry *entry = to_vrnic_mmap_entry(rdma_entry);

	vfree(entry->buf);
	kfree(entry);
}
