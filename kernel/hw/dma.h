/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic hardware model: the DMA engine.
 *
 * The engine reaches host memory only through DMA addresses, the way a
 * NIC does: addresses the kernel DMA API returned for the device's DMA
 * device (the netdev's PCI function).  It turns each one back into memory
 * the way the platform maps it: through the IOMMU's translation when the
 * device sits in a translated domain, by the direct mapping otherwise,
 * and as a kernel virtual address for devices with no DMA device (virtual
 * DMA, like rxe on veth).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HW_DMA_H
#define VRNIC_HW_DMA_H

#include <linux/types.h>

struct device;

enum vrnic_dma_dir {
	VRNIC_DMA_TO_DEVICE,	/* read host memory into a buffer */
	VRNIC_DMA_FROM_DEVICE,	/* write a buffer into host memory */
};

int vrnic_dma_copy(struct device *dma_dev, u64 dma_addr, void *buf,
		   unsigned int len, enum vrnic_dma_dir dir);

#endif /* VRNIC_HW_DMA_H */
