/** A set that forgets its oldest member once it holds `capacity` members. */
export class BoundedSet {
  private readonly members = new Set<string>();
  constructor(private readonly capacity: number) {
    if (capacity < 1) throw new Error('capacity must be at least 1');
  }
  has(key: string): boolean {
    return this.members.has(key);
  }
  add(key: string): void {
    if (this.members.has(key)) return;
    if (this.members.size >= this.capacity) this.members.delete(this.members.values().next().value as string);
    this.members.add(key);
  }
  get size(): number {
    return this.members.size;
  }
}
