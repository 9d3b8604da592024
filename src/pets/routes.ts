import type { NewPet, PetQuery } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import type { OperationHandlers } from '../http/index.js';
import type { IdempotentCreates } from '../idempotency/index.js';
import type { PetRepository } from '../storage/index.js';

/** The handlers of `listPets`, `createPet` and the deprecated `getPetById`. */
export function createPetHandlers(deps: {
  pets: PetRepository;
  creates: IdempotentCreates;
}): Pick<OperationHandlers, 'listPets' | 'createPet' | 'getPetById'> {
  const { pets, creates } = deps;
  return {
    async listPets(request, reply) {
      return reply.send(await pets.list(request.query as PetQuery));
    },
    createPet(request, reply) {
      const body = request.body as NewPet;
      return creates.answer(request, reply, async (write) => {
        const input = { name: body.name, categoryId: body.categoryId, status: body.status ?? 'available' };
        const result = await pets.create(input, write);
        if (!result.ok) {
          throw new ApiError(
            'validation_failed',
            `categoryId ${body.categoryId} does not name an existing category`,
          );
        }
        return result.pet;
      });
    },
    async getPetById(request, reply) {
      const { petId } = request.params as { petId: number };
      const pet = await pets.get(petId);
      if (pet === undefined) throw new ApiError('not_found', `No pet has the id ${petId}`);
      return reply.send(pet);
    },
  };
}
