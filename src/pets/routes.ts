import { ApiError } from '../errors/index.js';
import { cutPage, type OperationHandlers, pageAsked } from '../http/index.js';
import { type IdempotentCreates, sendAnswer } from '../idempotency/index.js';
import type { PetRepository } from '../storage/index.js';

/** The handlers of `listPets`, `createPet` and the deprecated `getPetById`. */
export function createPetHandlers(deps: {
  pets: PetRepository;
  creates: IdempotentCreates;
}): Pick<OperationHandlers, 'listPets' | 'createPet' | 'getPetById'> {
  const { pets, creates } = deps;
  return {
    async listPets(request, reply) {
      const { categoryId, status, ...paging } = request.query;
      const filter = {
        ...(categoryId !== undefined ? { categoryId } : {}),
        ...(status !== undefined ? { status } : {}),
      };
      const page = pageAsked(paging);
      if (page === undefined) return reply.send(await pets.list(filter));
      const found = await pets.list({ ...filter, afterId: page.after ?? 0, limit: page.limit + 1 });
      return reply.send(cutPage(request, reply, found, page.limit, (last) => last.id));
    },
    async createPet(request, reply) {
      const { name, categoryId, status = 'available' } = request.body;
      const outcome = await creates.run(request, 'createPet', { name, categoryId, status });
      if (!outcome.ok) {
        throw new ApiError(
          'validation_failed',
          `categoryId ${categoryId} does not name an existing category`,
        );
      }
      return sendAnswer(reply, outcome.answer);
    },
    async getPetById(request, reply) {
      const { petId } = request.params;
      const pet = await pets.get(petId);
      if (pet === undefined) throw new ApiError('not_found', `No pet has the id ${petId}`);
      return reply.send(pet);
    },
  };
}
