/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: work and completion queues in the rxe userspace ABI layout.
 *
 * A queue is a power-of-two ring of fixed-size elements behind a struct
 * rxe_queue_buf header (uapi/rdma/rdma_user_rxe.h), so that librxe can
 * mmap it and post or poll without a system call.  One slot always stays
 * empty: the ring is full when producer + 1 == consumer.
 *
 * Which side owns which index depends on the direction:
 *
 *   FROM_USER    user produces (SQ/RQ/SRQ of a user QP): the producer
 *                index is read from user memory and must be treated as
 *                hostile; the consumer index is ours and is published
 *   TO_USER      we produce (user CQ): the consumer index comes from user
 *                memory; the producer index is ours and is published
 *   FROM_KERNEL  kernel verbs post into it, the engine consumes
 *   TO_KERNEL    the engine produces, kernel poll_cq consumes
 *
 * Every index that crosses from user memory is masked before use, so a
 * corrupted index can only select a slot of this queue, never memory
 * outside it.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_QUEUE_H
#define VRNIC_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

enum vrnic_queue_dir {
	VRNIC_QUEUE_FROM_USER,
	VRNIC_QUEUE_TO_USER,
	VRNIC_QUEUE_FROM_KERNEL,
	VRNIC_QUEUE_TO_KERNEL,
};

struct vrnic_mmap_entry;

/**
 * struct vrnic_queue - a ring shared with userspace or a kernel consumer
 * @buf:	header and elements; vmalloc_user() memory
 * @buf_size:	bytes in @buf
 * @elem_shift:	log2 of the element size
 * @mask:	slots - 1
 * @dir:	who produces and who consumes, see above
 * @index:	our private index: the consumer for *_FROM_*, the producer for
 *		*_TO_*; user memory never overrides it
 * @mmap:	the mmap entry while the buffer is mapped into a process; it
 *		owns @buf from then on and frees it when the last mapping
 *		and the queue are gone
 */
struct vrnic_queue {
	struct rxe_queue_buf	*buf;
	size_t			buf_size;
	unsigned int		elem_shift;
	u32			mask;
	enum vrnic_queue_dir	dir;
	u32			index;
	struct vrnic_mmap_entry	*mmap;
};

int vrnic_queue_init(struct vrnic_queue *q, unsigned int *num_elem,
		     size_t elem_size, enum vrnic_queue_dir dir);
int vrnic_queue_mmap_info(struct vrnic_queue *q, struct ib_ucontext *uctx,
			  struct mminfo *mi);
void vrnic_queue_cleanup(struct vrnic_queue *q);
void vrnic_queue_reset(struct vrnic_queue *q);
int vrnic_queue_move(struct vrnic_queue *new, const struct vrnic_queue *old);

void vrnic_dma_info_fill(struct rxe_dma_info *dma, const struct ib_sge *sg,
			 int num_sge, u32 length);
int vrnic_queue_post_recv(struct vrnic_queue *q, const struct ib_recv_wr *wr,
			  u32 max_sge);

int vrnic_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void vrnic_mmap_free(struct rdma_user_mmap_entry *entry);

static inline bool vrnic_queue_user(const struct vrnic_queue *q)
{
	return q->dir == VRNIC_QUEUE_FROM_USER || q->dir == VRNIC_QUEUE_TO_USER;
}

static inline u32 vrnic_queue_producer(const struct vrnic_queue *q)
{
	switch (q->dir) {
	case VRNIC_QUEUE_FROM_USER:
		/* Pairs with the release store of the user's producer. */
		return smp_load_acquire(&q->buf->producer_index) & q->mask;
	case VRNIC_QUEUE_TO_USER:
	case VRNIC_QUEUE_TO_KERNEL:
		return q->index;
	case VRNIC_QUEUE_FROM_KERNEL:
	default:
		/*
		 * A kernel verb posts under the queue's lock, the engine
		 * reads without it: pairs with the poster's release store.
		 */
		return smp_load_acquire(&q->buf->producer_index) & q->mask;
	}
}

static inline u32 vrnic_queue_consumer(const struct vrnic_queue *q)
{
	switch (q->dir) {
	case VRNIC_QUEUE_FROM_USER:
		return q->index;
	case VRNIC_QUEUE_FROM_KERNEL:
		/*
		 * The poster's full check runs on another CPU than the
		 * engine that consumes: it reads the published index, which
		 * pairs with the release in vrnic_queue_advance_consumer(),
		 * so a slot is reused only after the engine's reads of it.
		 * The engine itself reads the same value (it alone writes).
		 */
		return smp_load_acquire(&q->buf->consumer_index) & q->mask;
	case VRNIC_QUEUE_TO_USER:
		/* The user's reads of a CQE are done: pairs with librxe's release. */
		return smp_load_acquire(&q->buf->consumer_index) & q->mask;
	case VRNIC_QUEUE_TO_KERNEL:
	default:
		return READ_ONCE(q->buf->consumer_index) & q->mask;
	}
}

static inline u32 vrnic_queue_count(const struct vrnic_queue *q)
{
	return (vrnic_queue_producer(q) - vrnic_queue_consumer(q)) & q->mask;
}

static inline bool vrnic_queue_empty(const struct vrnic_queue *q)
{
	return vrnic_queue_count(q) == 0;
}

static inline bool vrnic_queue_full(const struct vrnic_queue *q)
{
	return ((vrnic_queue_producer(q) + 1 - vrnic_queue_consumer(q)) &
		q->mask) == 0;
}

static inline void *vrnic_queue_slot(const struct vrnic_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->mask) << q->elem_shift);
}

static inline size_t vrnic_queue_elem_size(const struct vrnic_queue *q)
{
	return (size_t)1 << q->elem_shift;
}

/* The slot the producer fills next; the caller checked !full. */
static inline void *vrnic_queue_producer_slot(const struct vrnic_queue *q)
{
	return vrnic_queue_slot(q, vrnic_queue_producer(q));
}

/* The oldest element, or NULL when the queue is empty. */
static inline void *vrnic_queue_head(const struct vrnic_queue *q)
{
	return vrnic_queue_empty(q) ? NULL :
	       vrnic_queue_slot(q, vrnic_queue_consumer(q));
}

/* Publish one produced element (ours: TO_USER, TO_KERNEL, FROM_KERNEL). */
static inline void vrnic_queue_advance_producer(struct vrnic_queue *q)
{
	u32 prod;

	if (q->dir == VRNIC_QUEUE_FROM_KERNEL) {
		prod = (READ_ONCE(q->buf->producer_index) + 1) & q->mask;
	} else {
		prod = (q->index + 1) & q->mask;
		q->index = prod;
	}
	/* The element is written before it is published: pairs with the acquire of the consumer. */
	smp_store_release(&q->buf->producer_index, prod);
}

/* Retire one consumed element (ours: FROM_USER, FROM_KERNEL, TO_KERNEL). */
static inline void vrnic_queue_advance_consumer(struct vrnic_queue *q)
{
	u32 cons;

	if (q->dir == VRNIC_QUEUE_TO_KERNEL) {
		cons = (READ_ONCE(q->buf->consumer_index) + 1) & q->mask;
	} else {
		cons = (q->index + 1) & q->mask;
		q->index = cons;
	}
	/* Our reads of the slot are done before the producer may reuse it. */
	smp_store_release(&q->buf->consumer_index, cons);
}

#endif /* VRNIC_QUEUE_H */
