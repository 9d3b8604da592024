/**
 * The deprecation of `GET /pets/{petId}` (DESIGN.md section 5): when it was deprecated, when it stops
 * answering (its sunset), and where its notice is, for the `Link` header.
 */
export interface DeprecationPolicy {
  deprecatedAt: Date;
  sunsetAt: Date;
  link: string;
}
