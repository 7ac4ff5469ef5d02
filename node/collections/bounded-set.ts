/** A set that forgets its oldest member once it holds `capacity` members (0: remembers nothing, as Besu's SizeLimitedMap). */
export class BoundedSet {
  private readonly members = new Set<string>();
  constructor(private readonly capacity: number) {
    if (!(Number.isSafeInteger(capacity) && capacity >= 0)) throw new Error('capacity must be an integer >= 0');
  }
  has(key: string): boolean {
    return this.members.has(key);
  }
  add(key: string): void {
    if (this.members.has(key) || this.capacity === 0) return;
    if (this.members.size >= this.capacity) this.members.delete(this.members.values().next().value as string);
    this.members.add(key);
  }
  get size(): number {
    return this.members.size;
  }
}
