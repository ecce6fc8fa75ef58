// Prices of a stay from a listing's calendar (POST /v1/reservations/quote, and the financials of a new
// reservation): nights x each night's price + the cleaning fee + taxes on both. No I/O here.
import type { Breakdown, Financials } from './reservation';

export interface NightPrice {
  date: string;
  price: number;
  available: boolean;
}

export interface PricingInput {
  nights: NightPrice[];
  cleaningFee: number;
  /** Fraction, e.g. 0.06 for 6 %. */
  taxRate: number;
}

export interface StayPrice {
  totalPrice: number;
  breakdown: Breakdown;
  available: boolean;
  unavailableDates: string[];
}

/** The tax line's type: the listing has one rate, charged on the nights and the cleaning. */
export const STAY_TAX = 'TAX';
/** Lines that reconcile a caller-set total with the computed breakdown. */
export const CUSTOM_PRICE_DISCOUNT = 'CUSTOM_PRICE';
export const CUSTOM_PRICE_FEE = 'CUSTOM_PRICE';

/** Money in the currency's minor unit precision (2 decimals), away from binary noise. */
export const money = (n: number): number => Math.round((n + Number.EPSILON) * 100) / 100;

export function priceStay(input: PricingInput): StayPrice {
  const basePrice = money(input.nights.reduce((sum, n) => sum + n.price, 0));
  const cleaningFee = money(input.cleaningFee);
  const taxable = basePrice + cleaningFee;
  const taxes = input.taxRate > 0 ? [{ type: STAY_TAX, amount: money(taxable * input.taxRate), rate: input.taxRate }] : [];
  const totalPrice = money(taxable + taxes.reduce((s, t) => s + t.amount, 0));
  const unavailableDates = input.nights.filter((n) => !n.available).map((n) => n.date);
  return {
    totalPrice,
    breakdown: { basePrice, cleaningFee, fees: [], taxes, discounts: [] },
    available: unavailableDates.length === 0,
    unavailableDates,
  };
}

/**
 * The financials of a new reservation. Without a total the quoted price is the price. With a
 * total set by the caller (a custom price), the breakdown keeps the quoted lines and one
 * CUSTOM_PRICE discount (below the quote) or fee (above it), so the lines always add up to
 * `totalPrice`.
 */
export function financialsFor(quoted: StayPrice, currency: string, customTotal: number | undefined): Financials {
  const breakdown: Breakdown = {
    basePrice: quoted.breakdown.basePrice,
    cleaningFee: quoted.breakdown.cleaningFee,
    fees: [...quoted.breakdown.fees],
    taxes: [...quoted.breakdown.taxes],
    discounts: [...quoted.breakdown.discounts],
  };
  const totalPrice = customTotal === undefined ? quoted.totalPrice : money(customTotal);
  const gap = money(totalPrice - quoted.totalPrice);
  if (gap < 0) breakdown.discounts.push({ type: CUSTOM_PRICE_DISCOUNT, amount: -gap });
  if (gap > 0) breakdown.fees.push({ type: CUSTOM_PRICE_FEE, amount: gap });
  return { totalPrice, currency, paymentStatus: 'UNPAID', breakdown };
}
