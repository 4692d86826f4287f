import type { CatalogPerfume } from '../catalog/types.ts';
import { catalogProfile } from '../matching/profile.ts';
import { CompiledProducts, lineOf, type ScoringProduct } from '../scoring/products.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';

/** A shop that sells every perfume of the shipped catalog, one product each, at the prices given (else 400 SAR). */
export function wholeCatalogShop(prices: Record<string, number> = {}): CompiledProducts {
  const products: ScoringProduct[] = bundledSnapshot().perfumes.map((p: CatalogPerfume) => ({
    merchantProductId: `sku-${p.id}`,
    perfumeId: p.id,
    name: p.name,
    house: p.house,
    price: prices[p.id] ?? 400,
    currency: 'SAR',
    productUrl: null,
    imageUrl: null,
    quality: 'full',
    gender: (p.gender as ScoringProduct['gender']) ?? null,
    profile: catalogProfile(p),
    line: lineOf(p.house, p.name),
    lineHouse: p.house,
  }));
  return new CompiledProducts(1, products);
}
