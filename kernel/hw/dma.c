// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic hardware model: the DMA engine (see dma.h).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/dma-direct.h>
#include <linux/highmem.h>
#include <linux/iommu.h>
#include <linux/mm.h>

#include "dma.h"

/*
 * Translate one DMA address to the page and offset it reaches.  Returns
 * NULL for an address that leads nowhere (unmapped IOVA, no such page).
 */
static struct page *vrnic_dma_page(struct device *dma_dev, u64 dma_addr,
				   unsigned int *offset)
{
	struct iommu_domain *domain;
	phys_addr_t phys;

	if (!dma_dev) {
		/* Virtual DMA: the "DMA address" is a kernel virtual address. */
		void *va = (void *)(uintptr_t)dma_addr;

		if (!virt_addr_valid(va))
			return NULL;
		*offset = offset_in_page(va);
		return virt_to_page(va);
	}

	domain = iommu_get_domain_for_dev(dma_dev);
	if (domain && domain->type != IOMMU_DOMAIN_IDENTITY) {
		phys = iommu_iova_to_phys(domain, dma_addr);
		if (!phys)
			return NULL;
	} else {
		if (dma_dev->dma_range_map)
			return NULL;	/* offset DMA ranges: not modelled */
		phys = dma_to_phys(dma_dev, dma_addr);
	}
	if (!pfn_valid(PHYS_PFN(phys)))
		return NULL;
	*offset = offset_in_page(phys);
	return pfn_to_page(PHYS_PFN(phys));
}

/**
 * vrnic_dma_copy - move bytes between host memory and an engine buffer
 * @dma_dev:	the device's DMA device, NULL for virtual DMA
 * @dma_addr:	where in host memory, as a DMA address
 * @buf:	the engine's buffer
 * @len:	bytes
 * @dir:	VRNIC_DMA_TO_DEVICE reads host memory into @buf
 *
 * The range may cross pages; each page is translated on its own, as an
 * IOMMU would.  Context: any (uses kmap_local_page).
 * Return: 0, or -EFAULT when part of the range does not translate.
 */
int vrnic_dma_copy(struct device *dma_dev, u64 dma_addr, void *buf,
		   unsigned int len, enum vrnic_dma_dir dir)
{
	while (len) {
		unsigned int off, chunk;
		struct page *page;
		void *va;

		page = vrnic_dma_page(dma_dev, dma_addr, &off);
		if (!page)
			return -EFAULT;
		chunk = min_t(unsigned int, len, PAGE_SIZE - off);
		va = kmap_local_page(page);
		if (dir == VRNIC_DMA_TO_DEVICE)
			memcpy(buf, va + off, chunk);
		else
			memcpy(va + off, buf, chunk);
		kunmap_local(va);
		dma_addr += chunk;
		buf += chunk;
		len -= chunk;
	}
	return 0;
}
